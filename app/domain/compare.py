"""Two outputs side by side (docs/teaching.md, "Compare"): their texts diffed by token, their
tool calls paired, their metrics in one table with the differences.

Everything is read from what ``inspect --json`` prints for a stream (``summarize``): the
``normalized`` output, the same shape in every dialect (docs/dialects.md), and the
``metrics``. The texts are diffed by ``textdiff.py``; this module pairs the tool calls and
lays out the metrics. Pure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .events import Event, ReasoningDelta, RefusalDelta, TextDelta, ToolCallArgs
from .textdiff import word_tokens


# ---------------------------------------------------------------------- metrics
@dataclass(frozen=True)
class Row:
    key: str  # the metric's name in ``inspect --json`` (metrics.*, normalized.*)
    label: str
    unit: str
    a: Any
    b: Any

    @property
    def numeric(self) -> bool:
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in (self.a, self.b))

    @property
    def difference(self) -> float | None:
        return self.b - self.a if self.numeric else None

    @property
    def ratio(self) -> float | None:
        return self.b / self.a if self.numeric and self.a else None

    @property
    def unknown(self) -> bool:
        """Neither side knows it: nothing to say they agree on."""
        return self.a is None and self.b is None

    @property
    def same(self) -> bool:
        return self.a == self.b and not self.unknown


METRICS = (
    ("ttft_ms", "time to first token", "ms"),
    ("ttfo_ms", "time to first output", "ms"),
    ("e2el_ms", "end-to-end latency", "ms"),
    ("itl_p50_ms", "inter-token latency p50", "ms"),
    ("itl_p95_ms", "inter-token latency p95", "ms"),
    ("itl_max_ms", "inter-token latency max", "ms"),
    ("tpot_ms", "time per output token", "ms"),
    ("tokens_per_s", "output tokens per second", "/s"),
    ("decode_tokens_per_s", "decode rate", "/s"),
    ("output_tokens", "output tokens", ""),
    ("chunks", "events with output", ""),
)


OUTPUT_EVENTS = (TextDelta, ReasoningDelta, RefusalDelta, ToolCallArgs)


def output_timing(events: list[Event], choice: int) -> dict[str, Any]:
    """When one output's text, reasoning, refusal or tool arguments came: its first and last
    such event (ms from the request start; None without timing) and how many there were. Two
    outputs of one stream share the stream's metrics; these tell them apart."""
    times: list[float | None] = [
        e.t for e in events if isinstance(e, OUTPUT_EVENTS) and e.choice == choice
    ]
    timed = [t for t in times if t is not None]
    return {
        "first_ms": timed[0] if timed else None,
        "last_ms": timed[-1] if timed else None,
        "events": len(times),
    }


def metric_rows(
    a: dict[str, Any],
    b: dict[str, Any],
    oa: dict[str, Any],
    ob: dict[str, Any],
    timing: tuple[dict[str, Any], dict[str, Any]] | None = None,
) -> list[Row]:
    """Rows for two streams' summaries (``summarize``), the outputs compared
    (``normalized.outputs`` entries) and, when given, their ``output_timing``."""
    ma, mb = a["metrics"], b["metrics"]
    rows = [
        Row(f"metrics.{key}", label, unit, ma.get(key), mb.get(key)) for key, label, unit in METRICS
    ]
    rows.append(
        Row(
            "metrics.stalls", "stalls", "", len(ma.get("stalls") or []), len(mb.get("stalls") or [])
        )
    )
    ua, ub = a["normalized"].get("usage") or {}, b["normalized"].get("usage") or {}
    for key, label in (
        ("input_tokens", "input tokens (usage)"),
        ("output_tokens", "output tokens (usage)"),
    ):
        rows.append(Row(f"normalized.usage.{key}", label, "", ua.get(key), ub.get(key)))
    rows += [
        Row(
            "normalized.stop_reason",
            "stop reason",
            "",
            oa.get("stop_reason"),
            ob.get("stop_reason"),
        ),
        Row(
            "normalized.text",
            "answer tokens (words, spaces, marks)",
            "",
            len(word_tokens(oa.get("text") or "")),
            len(word_tokens(ob.get("text") or "")),
        ),
        Row(
            "normalized.reasoning",
            "reasoning tokens (words, spaces, marks)",
            "",
            len(word_tokens(oa.get("reasoning") or "")),
            len(word_tokens(ob.get("reasoning") or "")),
        ),
        Row(
            "normalized.tool_calls",
            "tool calls",
            "",
            len(oa.get("tool_calls") or []),
            len(ob.get("tool_calls") or []),
        ),
        Row("dialect", "dialect", "", a.get("dialect"), b.get("dialect")),
    ]
    if timing is not None:
        ta, tb = timing
        rows += [
            Row(
                "output.first_ms", "this output's first token", "ms", ta["first_ms"], tb["first_ms"]
            ),
            Row("output.last_ms", "this output's last token", "ms", ta["last_ms"], tb["last_ms"]),
            Row(
                "output.events", "this output's events with output", "", ta["events"], tb["events"]
            ),
        ]
    return rows


# ---------------------------------------------------------------------- tool calls
@dataclass(frozen=True)
class ToolPair:
    index: int
    a: dict[str, Any] | None
    b: dict[str, Any] | None

    @property
    def same_name(self) -> bool:
        return (
            self.a is not None and self.b is not None and self.a.get("name") == self.b.get("name")
        )

    @property
    def same_arguments(self) -> bool:
        if self.a is None or self.b is None:
            return False
        return _parsed(self.a.get("arguments")) == _parsed(self.b.get("arguments"))


def _parsed(arguments: Any) -> Any:
    """Arguments compared as JSON values when they parse (key order and spacing aside)."""
    if isinstance(arguments, str):
        try:
            return ("json", json.loads(arguments))
        except ValueError:
            return ("text", arguments)
    return ("value", arguments)


def tool_pairs(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[ToolPair]:
    """The calls of both outputs, paired in the order they were made."""
    return [
        ToolPair(i, a[i] if i < len(a) else None, b[i] if i < len(b) else None)
        for i in range(max(len(a), len(b)))
    ]


def pretty_arguments(arguments: Any) -> str:
    kind, value = _parsed(arguments)
    if kind == "json":
        return json.dumps(value, indent=2, ensure_ascii=False)
    return value if isinstance(value, str) else json.dumps(value)
