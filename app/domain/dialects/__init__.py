"""The dialects Streamscope reads, one package each (docs/dialects.md).

``DIALECTS`` is the registry. A stream's dialect is the one surest that one of its payloads is
its own: every dialect's ``sniff`` says how sure (``base.NAMED`` to ``GUESSED``) and why, and
the surest wins whatever the order here (payloads every dialect may send, such as pings and
errors, decide nothing), unless the user names it. Two equally sure, or none surer than a
guess, is said in a diagnostic. Adding a dialect is one package with its ``Dialect`` record,
one line here, its docs and its tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..events import RawEvent
from ..fastpath import Item
from ..interpret import PayloadInterpreter
from ..stream import Stream
from .anthropic.interpreter import ANTHROPIC
from .base import SHAPED, Dialect
from .bedrock.interpreter import BEDROCK
from .chat.interpreter import CHAT
from .cohere.interpreter import COHERE
from .completions.interpreter import COMPLETIONS
from .gemini.interpreter import GEMINI
from .ollama.interpreter import OLLAMA
from .responses.interpreter import RESPONSES
from .unknown import Looks, unread_message

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


@dataclass(frozen=True)
class Detected:
    dialect: Dialect
    confidence: float
    reason: str
    tied: Dialect | None = None  # another dialect as sure (the first registered is read)


def detect(event: str | None, value: dict[str, Any]) -> Detected | None:
    """The dialect surest that this payload is its own, how sure and why; None when none is."""
    best: Detected | None = None
    for dialect in DIALECTS:
        sniffed = dialect.sniff(event, value)
        if sniffed is None:
            continue
        confidence, reason = sniffed
        if best is None or confidence > best.confidence:
            best = Detected(dialect, confidence, reason)
        elif confidence == best.confidence and best.tied is None:
            best = Detected(best.dialect, confidence, best.reason, tied=dialect)
    return best


def claimant(event: str | None, value: dict[str, Any]) -> tuple[str, str] | None:
    """The name and title of the dialect that reads this payload (an interpreter's
    ``claimant``: interpret.py), or None."""
    found = detect(event, value)
    return (found.dialect.name, found.dialect.title) if found else None


Adopt = Callable[[PayloadInterpreter], None]


class Detecting(PayloadInterpreter):
    """A stream's interpreter until one of its payloads says which dialect it is: then the
    dialect's own interpreter takes over (``adopt``) from that payload on. Payloads before it
    (pings, errors, comments) are read the way every dialect reads them."""

    def __init__(self, stream: Stream, adopt: Adopt) -> None:
        super().__init__(stream)
        self._adopt = adopt
        self.claimant = claimant
        self.looks = Looks()

    def value(self, raw: RawEvent, value: Any) -> None:
        if isinstance(value, dict):
            found = detect(raw.event, value)
            if found is not None:
                chosen = start(self.stream, found.dialect, f"{found.reason}, line {raw.line}")
                self._say_doubt(raw, found, chosen)
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
        if isinstance(value, dict):
            self.looks.see(value)
        self.other(raw, value)

    @staticmethod
    def _say_doubt(raw: RawEvent, found: Detected, chosen: PayloadInterpreter) -> None:
        """Two dialects as sure, or a guess: said where the dialect was chosen."""
        title = found.dialect.title
        if found.tied is not None:
            chosen.note(
                raw,
                "dialect_tie",
                "warning",
                f"this payload reads as {title} and as {found.tied.title} alike; read as "
                f"{title} (name the dialect to choose)",
            )
        elif found.confidence < SHAPED:
            chosen.note(
                raw,
                "dialect_guessed",
                "info",
                f"read as {title} from {found.reason} only; name the dialect if that is wrong",
            )

    def not_ours(self) -> str:
        return "not a payload of any known dialect"

    def run(self, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]) -> int:
        """One payload at a time: the one that names the dialect hands the stream over."""
        return super().run(items, i, min(stop, i + 1), kept)

    def close(self) -> None:
        if any(r.kind == "event" for r in self.stream.raw) and not self.errored:
            message = unread_message(self.looks, NAMES)
            self.stream.dialect_reason = message  # said first: inspect, its --json, the page
            self.note(None, "unknown_dialect", "warning", message)


def start(stream: Stream, dialect: Dialect, reason: str) -> PayloadInterpreter:
    stream.dialect = dialect
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
