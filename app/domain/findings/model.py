"""A rule of the catalogue, and a finding: a rule that a stream breaks, with where.

A rule (docs/rules.md) names one server quirk: its id is a contract (links, ``check
--fail-on``, JUnit test names), its severity says what it costs (``error``: a spec violation
that breaks a mainstream client; ``warning``: breaks some clients or loses data; ``info``:
legal but surprising), and its text says what it is, why it matters, which clients it breaks
and where that was found (public issue threads). Its ``check`` reads a stream's evidence
(evidence.py) and yields a ``Hit`` for each place the stream breaks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import msgspec

if TYPE_CHECKING:
    from .evidence import Evidence

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "error")  # least to most


def rank(severity: str) -> int:
    """0 for info, 1 for warning, 2 for error."""
    return ("info", "warning", "error").index(severity)


class Hit(NamedTuple):
    """One place a stream breaks a rule: what exactly, the raw event to show (None for the
    stream as a whole), and how many ``times`` when one hit stands for several."""

    message: str
    raw: int | None = None
    times: int = 1


Check = Callable[["Evidence"], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    id: str
    dialects: tuple[str, ...]
    severity: Severity
    title: str  # a few words, for a list
    what: str  # one sentence
    why: str
    breaks: tuple[str, ...]  # clients, with versions where known
    sources: tuple[str, ...]  # public issue threads, as URLs
    check: Check
    needs_request: bool = False  # judged only where the request is known
    needs_headers: bool = False  # judged only where the response headers are known


class Finding(msgspec.Struct, kw_only=True, omit_defaults=False):
    """A rule a stream breaks: ``raw`` is the raw event it is seen at (None: the whole
    stream), ``t``/``line``/``byte`` where that event is; ``count`` how many times."""

    rule: str
    severity: str
    title: str
    message: str
    raw: int | None = None
    t: float | None = None
    line: int | None = None
    byte: int | None = None
    count: int = 1

    def to_json(self, doc: str = "docs/rules.md#") -> dict[str, Any]:
        """The finding as ``inspect --json``, the API and the wire give it: its fields and
        ``doc``, its rule's entry (``doc`` and the rule's id: docs/rules.md's anchor for the
        command line, the catalogue page's on a server)."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "title": self.title,
            "message": self.message,
            "raw": self.raw,
            "t": self.t,
            "line": self.line,
            "byte": self.byte,
            "count": self.count,
            "doc": doc + self.rule,
        }
