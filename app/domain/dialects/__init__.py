"""The dialects Streamscope reads, one registered module each (docs/dialects.md).

``DIALECTS`` is the registry in detection order: a stream's dialect is the first whose
``sniff`` recognises one of its payloads (payloads every dialect may send, such as pings and
errors, decide nothing), unless the user names it. Adding a dialect is one module with its
``Dialect`` record, one line here, its docs and its tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..events import RawEvent
from ..fastpath import Item
from ..interpret import PayloadInterpreter
from ..stream import Stream
from .anthropic import ANTHROPIC
from .base import Dialect
from .bedrock import BEDROCK
from .chat import CHAT
from .cohere import COHERE
from .completions import COMPLETIONS
from .gemini import GEMINI
from .ollama import OLLAMA
from .responses import RESPONSES

DIALECTS: tuple[Dialect, ...] = (
    ANTHROPIC,
    RESPONSES,
    COHERE,
    BEDROCK,
    GEMINI,
    OLLAMA,
    COMPLETIONS,
    CHAT,
)
NAMES: tuple[str, ...] = tuple(d.name for d in DIALECTS)
_BY_NAME = {d.name: d for d in DIALECTS}


def by_name(name: str | None) -> Dialect | None:
    return _BY_NAME.get(name) if name else None


def detect(event: str | None, value: dict[str, Any]) -> tuple[Dialect, str] | None:
    """The first dialect that recognises this payload, and why."""
    for dialect in DIALECTS:
        reason = dialect.sniff(event, value)
        if reason is not None:
            return dialect, reason
    return None


def claimant(event: str | None, value: dict[str, Any]) -> tuple[str, str] | None:
    """The name and title of the dialect that reads this payload (an interpreter's
    ``claimant``: interpret.py), or None."""
    found = detect(event, value)
    return (found[0].name, found[0].title) if found else None


Adopt = Callable[[PayloadInterpreter], None]


class Detecting(PayloadInterpreter):
    """A stream's interpreter until one of its payloads says which dialect it is: then the
    dialect's own interpreter takes over (``adopt``) from that payload on. Payloads before it
    (pings, errors, comments) are read the way every dialect reads them."""

    def __init__(self, stream: Stream, adopt: Adopt) -> None:
        super().__init__(stream)
        self._adopt = adopt
        self.claimant = claimant

    def value(self, raw: RawEvent, value: Any) -> None:
        if isinstance(value, dict):
            found = detect(raw.event, value)
            if found is not None:
                dialect, reason = found
                chosen = start(self.stream, dialect, f"{reason}, line {raw.line}")
                chosen.done, chosen.errored, chosen.text = self.done, self.errored, self.text
                self._adopt(chosen)
                chosen.value(raw, value)
                return
            if "error" in value or value.get("type") == "error":
                self.error(raw, value.get("error", value))
                return
        elif raw.event == "error":
            self.error(raw, value)
            return
        self.other(raw, value)

    def run(self, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]) -> int:
        """One payload at a time: the one that names the dialect hands the stream over."""
        return super().run(items, i, min(stop, i + 1), kept)

    def close(self) -> None:
        if any(r.kind == "event" for r in self.stream.raw) and not self.errored:
            self.note(
                None,
                "unknown_dialect",
                "warning",
                "no payload in this stream is one a known dialect sends "
                f"({', '.join(d.title for d in DIALECTS)}): nothing to assemble (see its payloads)",
            )


def start(stream: Stream, dialect: Dialect, reason: str) -> PayloadInterpreter:
    stream.dialect = dialect.name
    stream.dialect_reason = reason
    interpreter = dialect.interpreter(stream)
    interpreter.title_text, interpreter.claimant = dialect.title, claimant
    return interpreter


def interpreter_for(stream: Stream, name: str | None, adopt: Adopt) -> PayloadInterpreter:
    """The named dialect's interpreter, or one that detects the dialect from the payloads."""
    dialect = by_name(name)
    if dialect is not None:
        return start(stream, dialect, "named by the user")
    return Detecting(stream, adopt)
