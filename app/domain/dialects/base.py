"""What a dialect is: one record per streaming API (docs/dialects.md).

A dialect says how to recognise its payloads (``sniff``), how a payload becomes timeline
events (``interpreter``), how the timeline folds into the API's own final object, exactly as
its official SDK assembles it (``assemble``), and how to read its usage counters
(``usage_tokens``). The registry (``__init__.py``) lists every record in detection order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..events import Event
from ..interpret import PayloadInterpreter

Sniff = Callable[[str | None, dict[str, Any]], str | None]
Assemble = Callable[[list[Event]], dict[str, Any]]
Counts = dict[str, int | None]
UsageCounts = Callable[[dict[str, Any]], Counts]
FinalUsage = Callable[[dict[str, Any]], Any]


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
    message_start"), or None. ``usage_counts(usage)`` reads one usage object of the dialect
    (a ``Usage`` event's, or the final one) into the counters every dialect shares:
    ``input_tokens``, ``output_tokens`` and, where the dialect reports them,
    ``reasoning_tokens`` and ``cached_input_tokens``; ``output_field`` names the dialect's own
    output counter (metrics say where N came from). ``final_usage(completion)`` finds the usage
    in the assembled final object. ``usage_help`` says what each usage field means, for the page.
    ``server_timing(usage)``, for dialects whose usage carries the server's own durations,
    reads them from one usage object (the metrics' ``server`` section).
    """

    name: str
    title: str
    interpreter: type[PayloadInterpreter]
    sniff: Sniff
    assemble: Assemble
    usage_counts: UsageCounts
    final_usage: FinalUsage
    output_field: str
    usage_help: dict[str, str] = field(default_factory=dict)
    server_timing: ServerTimingOf | None = None


def int_or_none(value: Any) -> int | None:
    """A token count as sent, when it is an integer (not a bool, not text)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def nested(value: Any, *path: str) -> Any:
    """``value[path[0]][path[1]]...``, or None where a step is missing or not an object."""
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def counts(
    input_tokens: Any, output_tokens: Any, reasoning: Any = None, cached: Any = None
) -> Counts:
    """The shared counters; the optional ones only when the dialect reported them."""
    out: Counts = {
        "input_tokens": int_or_none(input_tokens),
        "output_tokens": int_or_none(output_tokens),
    }
    if int_or_none(reasoning) is not None:
        out["reasoning_tokens"] = int_or_none(reasoning)
    if int_or_none(cached) is not None:
        out["cached_input_tokens"] = int_or_none(cached)
    return out
