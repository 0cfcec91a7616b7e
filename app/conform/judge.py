"""A case's verdict from its runs, without I/O (docs/conform.md, "Verdicts").

In order: a documented refusal of an optional parameter (HTTP 400 or 422 with a JSON error
body) is ``unsupported``; a run that got no answer, or (for a case that expects streams) not
a 200 stream that ended normally, fails; otherwise the case's own check decides. Then the
rule catalogue and the client judges read every complete 200 stream: a finding of severity
error (or a judge that crashed) fails the case, a warning (or a judge that read something
else) makes it at least ``warn``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..domain.metrics import DEFAULT_STALL_MS, compute
from ..domain.rules import find
from ..domain.stream import Stream
from ..live.apis import api_named
from .model import Case, Result, Run, Verdict, failed, unsupported, worst

log = logging.getLogger("streamscope.conform")
Judge = Callable[[Stream], list[dict[str, Any]]]
REFUSED = (400, 422)  # the documented answers to a parameter a server does not support
METRICS = (
    "ttft_ms",
    "ttfo_ms",
    "itl_p50_ms",
    "itl_p95_ms",
    "e2el_ms",
    "chunks",
    "output_tokens",
    "tokens_source",
    "tokens_per_s",
)
JUDGE_VERDICT = {"crash": "fail", "differs": "warn"}
FINDING_VERDICT = {"error": "fail", "warning": "warn"}


@dataclass
class CaseReport:
    """One row of the report card; ``to_json`` is its entry in ``--json`` (docs/conform.md)."""

    case: str
    expects: str
    verdict: str
    why: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    judges: list[dict[str, Any]] = field(default_factory=list)
    captures: list[str] = field(default_factory=list)
    shared: list[dict[str, Any]] = field(default_factory=list)  # --server: each upload's answer
    metrics: dict[str, Any] | None = None
    status: int | None = None
    answered: bool = False  # some run got an HTTP answer
    error: str | None = None  # the first run's error, when none was answered
    duration_ms: float = 0.0

    @property
    def capture(self) -> str | None:
        """The first request's share link (``--server``), else its file (``--out``)."""
        links = [s["url"] for s in self.shared if s.get("url")]
        return links[0] if links else (self.captures[0] if self.captures else None)

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "verdict": self.verdict,
            "why": self.why,
            "expects": self.expects,
            "findings": self.findings,
            "judges": self.judges,
            "capture": self.capture,
            "captures": self.captures,
            "shared": self.shared,
            "metrics": self.metrics,
            "status": self.status,
            "duration_ms": round(self.duration_ms, 1),
        }


def counted(run: Run) -> bool:
    """Whether the rules and judges read this run: a 200 stream the client did not cut."""
    return run.status == 200 and not run.hung_up and run.stream is not None


def refused(case: Case, run: Run) -> Verdict | None:
    if not case.optional or run.status not in REFUSED:
        return None
    answer = run.error_body()
    if isinstance(answer, dict) and answer.get("error"):
        return unsupported(f"HTTP {run.status}: {run.error_message()}")
    return None


def not_a_stream(case: Case, result: Result) -> Verdict | None:
    for number, run in enumerate(result.runs, 1):
        which = f"request {number}: " if len(result.runs) > 1 else ""
        if run.status is None:
            return failed(f"{which}no answer: {run.error or run.reason}")
        if case.answer != "stream":
            continue
        if run.status != 200:
            return failed(f"{which}HTTP {run.status}: {run.error_message()}")
        accept = api_named(result.context.api).accept
        if not (run.content_type or "").lower().startswith(accept):
            said = run.content_type or "no content type"
            return failed(f"{which}not a stream: HTTP 200 with {said}, not {accept}")
        if run.hung_up:
            continue
        if run.reason != "done":
            return failed(f"{which}the stream ended with {run.reason}: {run.error or 'no reason'}")
        if run.stream is None or not run.stream.raw:
            return failed(f"{which}HTTP 200 with no events")
    return None


def checked(case: Case, result: Result) -> Verdict:
    try:
        return case.check(result)
    except Exception as exc:  # an answer no check foresaw is the server's failure, said plainly
        log.debug("check %s failed", case.name, exc_info=True)
        return failed(f"the answer could not be read as expected ({type(exc).__name__}: {exc})")


def assess(
    case: Case,
    result: Result,
    *,
    stall_ms: float = DEFAULT_STALL_MS,
    judge: Judge | None = None,
) -> CaseReport:
    first = result.first
    report = CaseReport(
        case=case.name,
        expects=case.expects,
        verdict="fail",
        why="",
        status=first.status,
        answered=any(run.status is not None for run in result.runs),
        error=None if first.status is not None else (first.error or first.reason),
    )
    base = refused(case, first) or not_a_stream(case, result) or checked(case, result)
    verdict, notes = base.verdict, []
    streams = [
        (number, run.stream)
        for number, run in enumerate(result.runs, 1)
        if counted(run) and run.stream is not None
    ]
    several = len(result.runs) > 1
    for number, stream in streams:
        for finding in find(stream, stall_ms=stall_ms):
            entry = finding.to_json()
            report.findings.append({**entry, "run": number} if several else entry)
        if judge is not None:
            for said in judge(stream):
                report.judges.append({**said, "run": number} if several else said)
    for entry in report.findings:
        raised = FINDING_VERDICT.get(entry["severity"])
        if raised:
            verdict = worst(verdict, raised)
            notes.append(f"{entry['rule']} ({entry['severity']})")
    for said in report.judges:
        raised = JUDGE_VERDICT.get(said.get("verdict", ""))
        if raised:
            verdict = worst(verdict, raised)
            notes.append(f"judge {said.get('client')} {said.get('verdict')}")
    report.verdict = verdict
    report.why = base.why + (f"; {', '.join(dict.fromkeys(notes))}" if notes else "")
    if streams:
        metrics = compute(streams[0][1], stall_ms).to_json()
        report.metrics = {name: metrics.get(name) for name in METRICS}
    return report
