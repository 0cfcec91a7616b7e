"""What reading a capture file gives: its format, its streams, and capture-level diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..domain.bytestart import DEFAULT_MAX_LINE, line_too_long
from ..domain.events import Diagnostic
from ..domain.stream import Source, Stream
from ..domain.timeline import DEFAULT_MAX_EVENTS, TimelineBuilder


@dataclass(frozen=True)
class Limits:
    """How to read a capture: bounds on what it may cost, and the dialect when the user names
    one (docs/dialects.md, "Detection"; None: detected from the payloads)."""

    max_decompressed: int = 256 * 1024 * 1024
    max_line: int = DEFAULT_MAX_LINE
    max_events: int = DEFAULT_MAX_EVENTS
    dialect: str | None = None
    scrub_seconds: float | None = None  # CPU one upload's scrub may take (None: no bound)

    def builder(
        self, source: Source, *, origin: str = "capture", container: str = "sse", **options: Any
    ) -> TimelineBuilder:
        """A timeline builder that keeps these limits and reads this dialect."""
        return TimelineBuilder(
            source,
            origin=origin,
            max_events=self.max_events,
            dialect=self.dialect,
            container=container,
            **options,
        )


def long_line(size: int, cap: int, line: int, byte: int) -> Diagnostic:
    """A line (or one JSON payload) over ``Limits.max_line``: skipped unparsed, so what it
    costs is bounded by the cap, not by the line (docs/security.md)."""
    return Diagnostic(
        code="line_too_long",
        severity="error",
        message=line_too_long(size, cap),
        line=line,
        byte=byte,
    )


@dataclass
class Capture:
    format: str | None
    streams: list[Stream] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    compression: str | None = None
    header: dict[str, Any] | None = None
    format_reason: str | None = None  # why this format: what detection saw, or the user's choice

    def noted_before(self, notes: list[dict[str, Any]]) -> None:
        """Diagnostics said of this capture's upload before its bytes were stored (as
        ``diagnostic_json`` wrote them: a truncated gzip), put first: the cause before what
        it caused."""
        self.diagnostics[:0] = [
            Diagnostic(
                code=n["code"],
                severity=n["severity"],
                message=n["message"],
                line=n.get("line"),
                byte=n.get("byte"),
            )
            for n in notes
        ]

    def note(self, code: str, severity: str, message: str, line: int | None = None) -> None:
        self.diagnostics.append(
            Diagnostic(code=code, severity=severity, message=message, line=line)  # type: ignore[arg-type]
        )

    @property
    def all_diagnostics(self) -> list[Diagnostic]:
        return self.diagnostics + [d for s in self.streams for d in s.diagnostics]
