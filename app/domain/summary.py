"""One stream, summed up: what ``inspect --json`` prints and the REST API returns per stream."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from .dialects import CHAT
from .dialects.base import Dialect
from .events import Diagnostic, Event, Logprobs, Meta, Payload, StreamError, ToolCallEnd, Usage
from .metrics import DEFAULT_STALL_MS, Metrics, compute
from .normalize import normalized
from .runs import folded
from .stream import Stream

E = TypeVar("E")


def diagnostic_json(diag: Diagnostic) -> dict[str, Any]:
    return {
        "code": diag.code,
        "severity": diag.severity,
        "message": diag.message,
        "line": diag.line,
        "byte": diag.byte,
        "t": diag.t,
    }


def dialect_of(stream: Stream) -> Dialect:
    """The stream's dialect; one whose payloads named none is summed up as chat completions
    (an empty completion)."""
    return stream.dialect or CHAT


def identity(stream: Stream) -> tuple[Any, Any]:
    """The response's id and model as its meta events name them (Gemini: responseId and
    modelVersion); the last model when it changed (a model router)."""
    return identity_of(stream.events)


def identity_of(events: Iterable[Event]) -> tuple[Any, Any]:
    """``identity`` from the stream's events, or from its meta events alone, in order."""
    found: dict[str, Any] = {}
    for event in events:
        if isinstance(event, Meta):
            for key, alias in (("id", "id"), ("responseId", "id"), ("model", "model")):
                if event.fields.get(key) not in (None, "") and (
                    alias == "model" or alias not in found
                ):
                    found[alias] = event.fields[key]
            if event.fields.get("modelVersion") and "model" not in found:
                found["model"] = event.fields["modelVersion"]
    return found.get("id"), found.get("model")


@dataclass(frozen=True)
class Folded:
    """A stream's timeline as the folds read it (runs.py: each run of text deltas as one; a
    usage that replaces the last, Gemini's with every chunk, only as the last one), and the
    kinds of event the whole timeline holds."""

    runs: list[Event]
    present: set[type]


def fold(stream: Stream, *, with_logprobs: bool = True) -> Folded:
    """``stream`` folded for ``summarize``; without its logprobs when ``with_logprobs`` is
    false."""
    dialect = dialect_of(stream)
    events = stream.events
    # The kinds of event the stream holds: a list of a kind it has none of costs no pass.
    # Where the last usage replaces the others, the fold drops all but it by their types:
    # one pass over the events gives both.
    kinds = list(map(type, events)) if dialect.usage_replaces else None
    present = set(kinds if kinds is not None else map(type, events))
    if not with_logprobs and Logprobs in present:
        events, kinds = [e for e in events if type(e) is not Logprobs], None
    last = Usage if dialect.usage_replaces and Usage in present else None
    return Folded(folded(events, only_last=last, kinds=kinds), present)


def summarize(
    stream: Stream,
    stall_ms: float = DEFAULT_STALL_MS,
    *,
    with_normalized: bool = True,
    with_logprobs: bool = True,
    timeline: Folded | None = None,
    metrics: Metrics | None = None,
) -> dict[str, Any]:
    """``completion`` is the dialect's own final object (for chat completions, a
    ``chat.completion`` with logprobs as fragments: serialise with orjson); ``normalized`` the
    same shape for every dialect (normalize.py). The readable report prints neither the
    normalized outputs nor logprobs: ``with_normalized`` false leaves the first out,
    ``with_logprobs`` false the completion's logprobs. ``timeline`` is the stream as ``fold``
    gave it with the same ``with_logprobs``, when the caller folded it already; ``metrics``
    the stream's metrics with ``stall_ms``, when the caller computed them already."""
    dialect = dialect_of(stream)
    if timeline is None:
        timeline = fold(stream, with_logprobs=with_logprobs)
    runs, present = timeline.runs, timeline.present
    completion = dialect.assemble(runs)
    errors = [
        {"message": e.message, "code": e.code, "error": e.error, "t": e.t, "raw": e.raw}
        for e in _of(runs, present, StreamError)
    ]
    tool_calls = [
        {
            "choice": e.choice,
            "call": e.call,
            "id": e.id,
            "name": e.name,
            "status": e.status,
            "error": e.error,
            "error_pos": e.error_pos,
            "incomplete": e.incomplete,
        }
        for e in _of(runs, present, ToolCallEnd)
    ]
    payloads = [
        {"category": e.category, "summary": e.summary, "raw": e.raw}
        for e in _of(runs, present, Payload)
    ]
    return {
        "index": stream.index,
        "origin": stream.origin,
        "end_reason": stream.end_reason,
        "end_error": stream.end_error,
        "dialect": stream.dialect_name,
        "dialect_reason": stream.dialect_reason,
        "completion": completion,
        "normalized": normalized(runs, dialect, completion) if with_normalized else None,
        "metrics": (metrics if metrics is not None else compute(stream, stall_ms)).to_json(),
        "tool_calls": tool_calls,
        "payloads": payloads,
        "errors": errors,
        "diagnostics": [diagnostic_json(d) for d in _of(runs, present, Diagnostic)],
        "events": len(stream.events),
        "raw_events": len(stream.raw),
    }


def _of(events: list[Event], present: set[type], kind: type[E]) -> list[E]:
    """The events of one kind, in order (none without a pass when the stream has none). Read
    from the folded timeline, which holds every event that is not a text delta."""
    if not any(issubclass(t, kind) for t in present):
        return []
    return [e for e in events if isinstance(e, kind)]
