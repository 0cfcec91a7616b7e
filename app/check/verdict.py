"""One capture file checked: its findings at or above the threshold, its budgets, and whether
it passes. The CLI prints it (text, JSON or JUnit XML) and exits by it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..captures import Capture, Limits
from ..captures.ingest import ingest
from ..captures.read import readable, unread
from ..domain.findings.engine import applies
from ..domain.findings.evidence import Evidence
from ..domain.findings.model import Rule, rank
from ..domain.rules import RULES
from ..report import StreamJudge, json_document
from .budget import Budget, Kept
from .budget import judge as keep

JUDGE_SEVERITY = {"crash": "error", "differs": "warning"}
NOT_JUDGED = {
    "needs_request": "not judged: the capture does not hold the request",
    "needs_headers": "not judged: the capture does not hold the response headers",
}


@dataclass
class StreamCheck:
    index: int
    findings: list[dict[str, Any]]
    failing: list[dict[str, Any]]
    budgets: list[Kept]
    judged: list[str]  # the rules judged on this stream
    unjudged: dict[str, str]  # rule -> why it was not judged
    judges: list[dict[str, Any]] = field(default_factory=list)
    fail_on: str = "error"

    @property
    def failing_judges(self) -> list[dict[str, Any]]:
        """The verdicts that fail the check: a client that crashed counts as an error, one
        that read something else as a warning; ``ok``, ``timeout`` and ``not installed``
        never fail it (docs/judges.md)."""
        return [
            j
            for j in self.judges
            if j["verdict"] in JUDGE_SEVERITY
            and rank(JUDGE_SEVERITY[j["verdict"]]) >= rank(self.fail_on)
        ]

    @property
    def passed(self) -> bool:
        return (
            not self.failing
            and not self.failing_judges
            and all(k.held is not False for k in self.budgets)
        )


@dataclass
class FileCheck:
    name: str
    error: str | None = None  # the file could not be read
    document: dict[str, Any] | None = None
    streams: list[StreamCheck] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.error is None and all(s.passed for s in self.streams)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.name,
            "passed": self.passed,
            "error": self.error,
            "inspect": self.document,
            "check": [
                {
                    "stream": s.index,
                    "passed": s.passed,
                    "failing": [f["rule"] for f in s.failing],
                    "failing_judges": [j["client"] for j in s.failing_judges],
                    "budgets": [k.to_json() for k in s.budgets],
                }
                for s in self.streams
            ],
        }


def check_capture(
    name: str,
    data: bytes,
    *,
    fail_on: str,
    budgets: list[Budget],
    stall_ms: float,
    limits: Limits | None = None,
    judge: StreamJudge | None = None,
) -> FileCheck:
    capture = ingest(data, None, limits or Limits(), store=False).capture
    if not readable(capture) or unread(capture):
        return FileCheck(name, error=_why_unread(capture))
    document = json_document(capture, stall_ms, judge)
    result = FileCheck(name, document=document)
    for stream, summary in zip(capture.streams, document["streams"], strict=True):
        findings = summary["findings"]
        evidence = Evidence(stream, stall_ms=stall_ms)
        judged, unjudged = [], {}
        for rule in RULES:
            if applies(rule, evidence):
                judged.append(rule.id)
            elif rule.needs_request or rule.needs_headers:
                dialect_ok = applies(_without_needs(rule), evidence)
                if dialect_ok:
                    unjudged[rule.id] = NOT_JUDGED[
                        "needs_request" if rule.needs_request else "needs_headers"
                    ]
        result.streams.append(
            StreamCheck(
                index=stream.index,
                findings=findings,
                failing=[f for f in findings if rank(f["severity"]) >= rank(fail_on)],
                budgets=keep(budgets, summary["metrics"]),
                judged=judged,
                unjudged=unjudged,
                judges=summary.get("judges", []),
                fail_on=fail_on,
            )
        )
    return result


def _without_needs(rule: Rule) -> Rule:
    return replace(rule, needs_request=False, needs_headers=False)


def _why_unread(capture: Capture) -> str:
    errors = [d for d in capture.diagnostics if d.severity == "error"]
    if errors:
        return f"{errors[0].code}: {errors[0].message}"
    return "no stream could be read"
