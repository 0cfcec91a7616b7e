"""What reading a capture file gives: its format, its streams, and capture-level diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..domain.events import Diagnostic
from ..domain.sse import DEFAULT_MAX_LINE
from ..domain.stream import Stream
from ..domain.timeline import DEFAULT_MAX_EVENTS

FORMATS: dict[str, str] = {
    "sse": "raw Server-Sent Events, as sent on the wire",
    "docs": "the documentation form: pretty-printed chunks after data:, '...' elisions, prose",
    "jsonl": "JSON Lines, one chunk object per line",
    "json": "a JSON array of chunk objects",
    "har": "HAR 1.2 exported from browser DevTools",
    "curl": "curl -N / curl -i output (status line and headers before the body)",
    "timed": "Streamscope's timed capture (JSON Lines of network reads with time offsets)",
    "eventstream": "AWS event-stream binary frames (Bedrock)",
}


@dataclass(frozen=True)
class Limits:
    """Bounds on what one capture may cost to read."""

    max_decompressed: int = 256 * 1024 * 1024
    max_line: int = DEFAULT_MAX_LINE
    max_events: int = DEFAULT_MAX_EVENTS


@dataclass
class Capture:
    format: str | None
    streams: list[Stream] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    compression: str | None = None
    header: dict[str, Any] | None = None

    def note(self, code: str, severity: str, message: str, line: int | None = None) -> None:
        self.diagnostics.append(
            Diagnostic(code=code, severity=severity, message=message, line=line)  # type: ignore[arg-type]
        )

    @property
    def all_diagnostics(self) -> list[Diagnostic]:
        return self.diagnostics + [d for s in self.streams for d in s.diagnostics]
