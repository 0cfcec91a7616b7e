"""Judging a stream by the catalogue: each rule that applies to it, its hits placed.

A rule applies to a stream of one of its dialects (``ANY``: every dialect), and only where
what it needs is known: the request (``needs_request``), the response headers
(``needs_headers``). Findings come in the stream's order (a finding of the whole stream
last), the most severe first at one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..stream import Stream
from .evidence import Evidence
from .model import Finding, Rule, rank

ANY = ("*",)


def applies(rule: Rule, evidence: Evidence) -> bool:
    if rule.dialects != ANY and evidence.dialect not in rule.dialects:
        return False
    if rule.needs_request and evidence.request is None:
        return False
    return not (rule.needs_headers and evidence.stream.content_type is None)


def judge(evidence: Evidence, rules: Iterable[Rule]) -> list[Finding]:
    findings = [
        _placed(evidence.stream, rule, hit.message, hit.raw, hit.times)
        for rule in rules
        if applies(rule, evidence)
        for hit in rule.check(evidence)
    ]
    end = len(evidence.stream.raw)
    findings.sort(key=lambda f: (end if f.raw is None else f.raw, -rank(f.severity)))
    return findings


def _placed(stream: Stream, rule: Rule, message: str, raw: int | None, count: int) -> Finding:
    finding = Finding(
        rule=rule.id, severity=rule.severity, title=rule.title, message=message, count=count
    )
    if raw is not None and 0 <= raw < len(stream.raw):
        event = stream.raw[raw]
        finding.raw, finding.t, finding.line, finding.byte = raw, event.t, event.line, event.byte
    return finding


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    """How many findings of each severity."""
    out = {"error": 0, "warning": 0, "info": 0}
    for finding in findings:
        out[finding.severity] += 1
    return out
