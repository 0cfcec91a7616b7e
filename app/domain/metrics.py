"""Timing metrics for one stream, with the definitions of docs/timeline.md, "Metrics"
(vLLM's names).

All times are milliseconds from the request start, taken in the backend at each network read.
A stream without real timing gets ``None`` for every timing metric ("unknown"), never a guess.
A HAR entry has no per-read times, only the whole response's: TTFT is then the time to the
response's first byte and E2EL the time to its last byte, and nothing else is known.
``timing_source`` says which ("reads", "har", or ``None``) and ``timing_note`` says it in words.

* TTFT: first chunk with a non-empty ``choices`` list.
* TTFO: first chunk with non-reasoning output (content, refusal or tool-call text).
* ITL: gaps between consecutive choice-bearing chunks (p50, p95, max; the list is kept).
* E2EL: last choice-bearing chunk (a trailing usage chunk does not extend it).
* N (output tokens): ``usage.completion_tokens``, else the number of ``logprobs.content``
  entries, else the number of chunks with output text; ``tokens_source`` says which.
* TPOT: (E2EL - TTFT) / (N - 1).
* tokens/s: N / E2EL; decode rate: (N - 1) / (last - first choice-bearing chunk).
* Stalls: ITL gaps at or above ``stall_ms`` (250 ms by default).

Percentiles interpolate linearly between the two nearest ranks (NumPy's default).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from .events import Logprobs, Usage
from .stream import ResponseTiming, Stream

DEFAULT_STALL_MS = 250.0
DEFINITIONS = {
    "ttft_ms": "Time to first token: request start to the first chunk with choices.",
    "ttfo_ms": "Time to first output: request start to the first content, refusal or "
    "tool-call text (reasoning does not count).",
    "itl_ms": "Inter-token latency: gaps between consecutive chunks with choices.",
    "tpot_ms": "Time per output token after the first: (E2EL - TTFT) / (N - 1).",
    "e2el_ms": "End-to-end latency: request start to the last chunk with choices.",
    "tokens_per_s": "Output tokens per second: N / E2EL.",
    "decode_tokens_per_s": "Decode rate: (N - 1) / (last chunk - first chunk).",
    "stalls": "Gaps between chunks at or above the stall threshold.",
}
# What the timing metrics were measured from, in words (after "timing: ").
READS_NOTE = "from the time of each network read (a timed capture or a live run)"
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
    usage = None
    logprob_tokens = 0
    for event in stream.events:
        if isinstance(event, Usage) and isinstance(event.usage.get("completion_tokens"), int):
            if event.source == "usage" or usage is None:
                usage = event.usage["completion_tokens"]
        elif isinstance(event, Logprobs) and event.field == "content":
            logprob_tokens += event.count
    if usage is not None:
        return usage, "usage.completion_tokens"
    if logprob_tokens:
        return logprob_tokens, "logprobs.content entries"
    chunks = sum(1 for raw in stream.raw if raw.output)
    if chunks:
        return chunks, "chunks with output text"
    return None, None


def compute(stream: Stream, stall_ms: float = DEFAULT_STALL_MS) -> Metrics:
    bearing = [raw for raw in stream.raw if raw.choices]
    n, source = output_tokens(stream)
    metrics = Metrics(stream.timed, len(bearing), n, source, stall_ms=stall_ms)
    times = [raw.t for raw in bearing]
    if not stream.timed or not times or any(t is None for t in times):
        if stream.response_timing is not None:
            _from_response(metrics, stream.response_timing)
        return metrics
    metrics.timing_source, metrics.timing_note = "reads", READS_NOTE
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
