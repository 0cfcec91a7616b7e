"""What a dialect is: one record per streaming API (docs/dialects.md).

A dialect says how to recognise its payloads (``sniff``), how a payload becomes timeline
events (``interpreter``), how the timeline folds into the API's own final object, exactly as
its official SDK assembles it (``assemble``), and where its usage counters are (``usage``: data,
not code). The registry (``__init__.py``) lists every record; detection asks them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..events import Event
from ..interpret import PayloadInterpreter
from .labels import Labels, ViewOf, no_view

# How sure a dialect is that a payload is its own (docs/dialects.md, "Detection"): every
# dialect is asked, and the surest wins, whatever the order they are registered in.
NAMED = 1.0  # the payload names the dialect: a type or object value only it sends
SPECIFIC = 0.8  # a shape only it has
SHAPED = 0.6  # fields that fit it, which another dialect's payload could also have
GUESSED = 0.3  # a field too common to say much: read so, with a diagnostic
Sniffed = tuple[float, str]  # the confidence, and why (e.g. "type message_start")
Sniff = Callable[[str | None, dict[str, Any]], Sniffed | None]
Assemble = Callable[[list[Event]], dict[str, Any]]
Counts = dict[str, int | None]
FinalUsage = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class UsageFields:
    """Where a dialect keeps its usage and its counters, as dotted paths: ``at`` in the final
    object (empty: the final object itself), ``input`` and ``output`` in a usage object, and the
    optional ``reasoning`` and ``cached`` ones."""

    at: str
    input: str
    output: str
    reasoning: str | None = None
    cached: str | None = None

    def counts(self, usage: dict[str, Any]) -> Counts:
        """One usage object read into the counters every dialect shares; the optional ones
        only when the dialect reported them."""
        out: Counts = {
            "input_tokens": int_or_none(dotted(usage, self.input)),
            "output_tokens": int_or_none(dotted(usage, self.output)),
        }
        for name, path in (
            ("reasoning_tokens", self.reasoning),
            ("cached_input_tokens", self.cached),
        ):
            value = int_or_none(dotted(usage, path)) if path else None
            if value is not None:
                out[name] = value
        return out

    @property
    def output_field(self) -> str:
        """The dialect's own output counter, named in full (metrics say where N came from)."""
        return f"{self.at}.{self.output}" if self.at else self.output


@dataclass(frozen=True)
class ServerTiming:
    """What a server reports of its own work (Ollama's done line): durations in milliseconds
    and the token counts they cover; None where it says nothing (docs/dialects.md)."""

    total_ms: float | None = None
    load_ms: float | None = None
    prompt_ms: float | None = None
    prompt_tokens: int | None = None
    decode_ms: float | None = None
    decode_tokens: int | None = None


ServerTimingOf = Callable[[dict[str, Any]], ServerTiming | None]


@dataclass(frozen=True)
class Dialect:
    """``name`` is what ``inspect --json`` and the page call it; ``title`` its name in prose.

    ``sniff(event_name, payload)`` returns why the payload is this dialect's (e.g. "type
    message_start"), or None. ``usage`` says where its usage and counters are: a usage object
    (a ``Usage`` event's, or the final one) reads into the counters every dialect shares
    (``input_tokens``, ``output_tokens`` and, where reported, ``reasoning_tokens`` and
    ``cached_input_tokens``). ``pick_usage``, when the usage is not one field of the final
    object, finds it there (Ollama's counts sit beside the message). ``usage_help`` says what
    each usage field means, for the page.
    ``server_timing(usage)``, for dialects whose usage carries the server's own durations,
    reads them from one usage object (the metrics' ``server`` section).
    ``labels`` and ``view`` are what the page shows of it, as data (labels.py): the browser
    knows roles, not dialects.
    ``usage_replaces``: each ``Usage`` event replaces the last in the final object, wherever
    it sits in the timeline (Gemini sends its running usage with every chunk), so the folds
    read only the last one (runs.py).
    ``no_arguments``: a tool call's arguments in the normalized view when it sent none, as the
    dialect's SDK gives them (the text SDKs accumulate: ``""``; Gemini's ``args``: ``None``).
    """

    name: str
    title: str
    interpreter: type[PayloadInterpreter]
    sniff: Sniff
    assemble: Assemble
    usage: UsageFields
    usage_help: dict[str, str] = field(default_factory=dict)
    server_timing: ServerTimingOf | None = None
    pick_usage: FinalUsage | None = None
    usage_replaces: bool = False
    no_arguments: str | None = ""
    labels: Labels = field(default_factory=Labels)
    view: ViewOf = no_view

    def usage_counts(self, usage: dict[str, Any]) -> Counts:
        return self.usage.counts(usage)

    def final_usage(self, completion: dict[str, Any]) -> Any:
        """The usage of the assembled final object, as the dialect reports it."""
        if self.pick_usage is not None:
            return self.pick_usage(completion)
        return dotted(completion, self.usage.at) if self.usage.at else completion

    @property
    def output_field(self) -> str:
        return self.usage.output_field


def int_or_none(value: Any) -> int | None:
    """A token count as sent, when it is an integer (not a bool, not text)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def dotted(value: Any, path: str) -> Any:
    """``value`` at a dotted path (``"a.b"``), or None where a step is missing."""
    return nested(value, *path.split("."))


def nested(value: Any, *path: str) -> Any:
    """``value[path[0]][path[1]]...``, or None where a step is missing or not an object."""
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
