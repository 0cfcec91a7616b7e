"""Timing metrics for one stream, with the definitions of docs/timeline.md, "Metrics"
(vLLM's names).

All times are milliseconds from the request start, taken in the backend at each network read.
A stream without real timing gets ``None`` for every timing metric ("unknown"), never a guess.
A HAR entry has no per-read times, only the whole response's: TTFT is then the time to the
response's first byte and E2EL the time to its last byte, and nothing else is known.
``timing_source`` says which ("recorded": measured at each network read, "synthesized": made
up by a generator such as the demos', "har", or ``None``) and ``timing_note`` says it in words.

* TTFT: first chunk with a non-empty ``choices`` list.
* TTFO: first chunk with non-reasoning output (content, refusal or tool-call text).
* ITL: gaps between consecutive choice-bearing chunks (p50, p95, max; the list is kept).
* E2EL: last choice-bearing chunk (a trailing usage chunk does not extend it).
* N (output tokens): ``usage.completion_tokens``, else the number of ``logprobs.content``
  entries, else the number of chunks with output text; ``tokens_source`` says which.
* TPOT: (E2EL - TTFT) / (N - 1).
* tokens/s: N / E2EL; decode rate: (N - 1) / (last - first choice-bearing chunk).
* Stalls: ITL gaps at or above ``stall_ms`` (250 ms by default).

``server`` holds what the server reports of its own work, next to the wire-timed numbers, for
dialects that report it (Ollama's done line; docs/dialects.md), else None. It needs no timing:
* ``total_duration_ms``, ``load_duration_ms``, ``prompt_eval_duration_ms``,
  ``eval_duration_ms``: the server's durations (Ollama: ``total_duration``, ``load_duration``,
  ``prompt_eval_duration``, ``eval_duration``, ns) in ms, from the last usage that has them;
* ``prompt_eval_tokens_per_s``: prompt tokens / prompt evaluation time (prefill rate);
* ``eval_tokens_per_s``: generated tokens / generation time (the server's decode rate, to set
  beside ``decode_tokens_per_s`` measured on the wire).
A value the server did not send is None.

Percentiles interpolate linearly between the two nearest ranks (NumPy's default).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from operator import attrgetter
from typing import Any

from .dialects import CHAT
from .dialects.base import ServerTiming, ServerTimingOf
from .events import Event, Logprobs, Usage
from .stream import ResponseTiming, Stream

DEFAULT_STALL_MS = 250.0
FALLBACK_USAGE = frozenset({"x_groq.usage"})  # counted only when no usage proper came
# Worded for every dialect: an "event with output" is what carries output in the stream's
# dialect (a chunk with choices in chat and legacy completions; a text, reasoning or tool-input
# delta in the others: docs/dialects.md), the raw events whose ``choices`` flag is set.
DEFINITIONS = {
    "ttft_ms": "Time to first token: request start to the first event with output "
    "(in chat completions, the first chunk with choices).",
    "ttfo_ms": "Time to first output: request start to the first content, refusal or "
    "tool-call text (reasoning does not count).",
    "itl_ms": "Inter-token latency: gaps between consecutive events with output.",
    "tpot_ms": "Time per output token after the first: (E2EL - TTFT) / (N - 1).",
    "e2el_ms": "End-to-end latency: request start to the last event with output.",
    "tokens_per_s": "Output tokens per second: N / E2EL.",
    "decode_tokens_per_s": "Decode rate: (N - 1) / (last event with output - first).",
    "stalls": "Gaps between events with output at or above the stall threshold.",
    "server": "What the server reports of its own work (durations, and rates from them).",
}
# What the timing metrics were measured from, in words (after "timing: ").
READS_NOTE = "from the time of each network read (a timed capture or a live run)"
SYNTHESIZED_NOTE = (
    "synthesized, not measured: the capture's network reads and their times were made up by "
    "a generator (the demos' timing is seeded by scripts/make_demos.py), so these numbers "
    "show the player, not a real server"
)
UNTIMED_NOTE = "unknown (this capture has no per-event times)"


@dataclass
class Metrics:
    timed: bool
    chunks: int
    output_tokens: int | None
    tokens_source: str | None
    ttft_ms: float | None = None
    ttfo_ms: float | None = None
    e2el_ms: float | None = None
    itl_ms: list[float] = field(default_factory=list)
    itl_p50_ms: float | None = None
    itl_p95_ms: float | None = None
    itl_max_ms: float | None = None
    tpot_ms: float | None = None
    tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    stall_ms: float = DEFAULT_STALL_MS
    stalls: list[dict[str, float]] = field(default_factory=list)
    server: dict[str, float | None] | None = None
    timing_source: str | None = None
    timing_note: str = UNTIMED_NOTE

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q
    low, high = math.floor(rank), math.ceil(rank)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 3)


def output_tokens(stream: Stream) -> tuple[int | None, str | None]:
    dialect = stream.dialect or CHAT
    fallback = None
    # The last usage that has a count (some dialects' counts are cumulative): read from the
    # end, so a stream that sends usage with every chunk reads one, not all of them, and one
    # that sends it last reads a few events.
    for event in reversed(stream.events):
        if not isinstance(event, Usage):
            continue
        count = dialect.usage_counts(event.usage)["output_tokens"]
        if count is None:
            continue
        if event.source not in FALLBACK_USAGE:
            return count, dialect.output_field
        if fallback is None:
            fallback = count
    if fallback is not None:
        return fallback, dialect.output_field
    logprob_tokens = sum(
        e.count for e in stream.events if isinstance(e, Logprobs) and e.field == "content"
    )
    if logprob_tokens:
        return logprob_tokens, "logprobs.content entries"
    chunks = sum(1 for raw in stream.raw if raw.output)
    if chunks:
        return chunks, "chunks with output text"
    return None, None


def server_section(stream: Stream) -> dict[str, float | None] | None:
    """The server's own durations and rates (module docstring), or None."""
    dialect = stream.dialect
    timing_of = dialect.server_timing if dialect else None
    if timing_of is None:
        return None
    timing = next(
        (found for e in reversed(stream.events) if (found := _timing(e, timing_of)) is not None),
        None,
    )
    if timing is None:
        return None
    return {
        "total_duration_ms": timing.total_ms,
        "load_duration_ms": timing.load_ms,
        "prompt_eval_duration_ms": timing.prompt_ms,
        "eval_duration_ms": timing.decode_ms,
        "prompt_eval_tokens_per_s": _rate(timing.prompt_tokens, timing.prompt_ms),
        "eval_tokens_per_s": _rate(timing.decode_tokens, timing.decode_ms),
    }


def _timing(event: Event, timing_of: ServerTimingOf) -> ServerTiming | None:
    return timing_of(event.usage) if isinstance(event, Usage) else None


def _rate(tokens: int | None, ms: float | None) -> float | None:
    return tokens / (ms / 1000) if tokens is not None and ms else None


_BEARS_CHOICES = attrgetter("choices")


def compute(stream: Stream, stall_ms: float = DEFAULT_STALL_MS) -> Metrics:
    n, source = output_tokens(stream)
    if not stream.timed:  # the chunks counted, no list of them (a capture without times)
        chunks = sum(map(_BEARS_CHOICES, stream.raw))
        metrics = Metrics(False, chunks, n, source, stall_ms=stall_ms)
        metrics.server = server_section(stream)
        if stream.response_timing is not None:
            _from_response(metrics, stream.response_timing)
        return metrics
    bearing = [raw for raw in stream.raw if raw.choices]
    metrics = Metrics(stream.timed, len(bearing), n, source, stall_ms=stall_ms)
    metrics.server = server_section(stream)
    times = [raw.t for raw in bearing]
    if not times or any(t is None for t in times):
        if stream.response_timing is not None:
            _from_response(metrics, stream.response_timing)
        return metrics
    if stream.synthesized:
        metrics.timing_source, metrics.timing_note = "synthesized", SYNTHESIZED_NOTE
    else:
        metrics.timing_source, metrics.timing_note = "recorded", READS_NOTE
    stamps: list[float] = [t for t in times if t is not None]
    metrics.ttft_ms = stamps[0]
    metrics.e2el_ms = stamps[-1]
    first_output = next((raw.t for raw in bearing if raw.output), None)
    metrics.ttfo_ms = first_output
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(stamps)]
    metrics.itl_ms = gaps
    metrics.itl_p50_ms = percentile(gaps, 0.5)
    metrics.itl_p95_ms = percentile(gaps, 0.95)
    metrics.itl_max_ms = max(gaps) if gaps else None
    metrics.stalls = [
        {"after_ms": bearing[i].t or 0.0, "gap_ms": gap, "raw": bearing[i + 1].index}
        for i, gap in enumerate(gaps)
        if gap >= stall_ms
    ]
    if n is not None and n > 1:
        metrics.tpot_ms = (stamps[-1] - stamps[0]) / (n - 1)
        decode_s = (stamps[-1] - stamps[0]) / 1000
        if decode_s > 0:  # divide first, then test: a sub-normal span rounds to 0 seconds
            metrics.decode_tokens_per_s = (n - 1) / decode_s
    total_s = stamps[-1] / 1000
    if n and total_s > 0:
        metrics.tokens_per_s = n / total_s
    return metrics


def _from_response(metrics: Metrics, timing: ResponseTiming) -> None:
    """TTFT and E2EL from a whole response's times (a HAR entry's), said as such."""
    metrics.ttft_ms = timing.first_byte_ms
    metrics.e2el_ms = timing.end_ms
    metrics.timing_source = timing.source
    started = f" (started {timing.started})" if timing.started else ""
    metrics.timing_note = (
        f"from the {timing.source.upper()} entry's timings{started}: TTFT is the time to the "
        "response's first byte and E2EL to its last byte; no per-event times, so the other "
        "timing metrics are unknown"
    )
