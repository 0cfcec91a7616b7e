"""Two outputs side by side (docs/teaching.md, "Compare"): their texts diffed by token, their
tool calls paired, their metrics in one table with the differences.

Everything is read from what ``inspect --json`` prints for a stream (``summarize``): the
``normalized`` output, the same shape in every dialect (docs/dialects.md), and the
``metrics``. Texts are split into tokens that mean the same in every dialect: words, runs of
whitespace and single other characters (a model's own tokens split differently from one model
to another, and most dialects send several in one chunk). The diff is a shortest edit script
(Myers' O(ND) algorithm), so the tokens in common are a longest common subsequence; past
``MAX_EDITS`` edits the texts are shown whole instead. Pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .events import Event, ReasoningDelta, RefusalDelta, TextDelta, ToolCallArgs

TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
MAX_TOKENS = 20_000  # per side; a longer text is diffed on its first MAX_TOKENS tokens
MAX_EDITS = 1_000


def word_tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


@dataclass(frozen=True)
class Piece:
    op: str  # "same", "removed" (only in A), "added" (only in B)
    text: str


@dataclass(frozen=True)
class TextDiff:
    pieces: list[Piece]
    same: int  # tokens in common
    removed: int
    added: int
    aligned: bool  # False: too different (or too long) to align; the texts are shown whole
    note: str = ""


def diff_texts(a: str, b: str, max_edits: int = MAX_EDITS) -> TextDiff:
    ta, tb = word_tokens(a), word_tokens(b)
    note = ""
    if len(ta) > MAX_TOKENS or len(tb) > MAX_TOKENS:
        note = f"diffed on the first {MAX_TOKENS:,} tokens of each side"
        ta, tb = ta[:MAX_TOKENS], tb[:MAX_TOKENS]
    ops = edit_script(ta, tb, max_edits)
    if ops is None:
        whole = [Piece("removed", "".join(ta)), Piece("added", "".join(tb))]
        return TextDiff(
            [p for p in whole if p.text],
            0,
            len(ta),
            len(tb),
            False,
            f"more than {max_edits:,} token edits apart: shown whole, not aligned",
        )
    pieces: list[Piece] = []
    counts = {"same": 0, "removed": 0, "added": 0}
    for op, token in ops:
        counts[op] += 1
        if pieces and pieces[-1].op == op:
            pieces[-1] = Piece(op, pieces[-1].text + token)
        else:
            pieces.append(Piece(op, token))
    return TextDiff(pieces, counts["same"], counts["removed"], counts["added"], True, note)


def edit_script(a: list[str], b: list[str], max_edits: int) -> list[tuple[str, str]] | None:
    """A shortest edit script from ``a`` to ``b`` as (op, token) pairs, or None when it takes
    more than ``max_edits`` insertions and deletions. The common prefix and suffix are taken
    off first."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = _myers(a[head : len(a) - tail], b[head : len(b) - tail], max_edits)
    if middle is None:
        return None
    same = [("same", token) for token in a[:head]]
    return same + middle + [("same", token) for token in a[len(a) - tail :]]


def _myers(a: list[str], b: list[str], max_edits: int) -> list[tuple[str, str]] | None:
    n, m = len(a), len(b)
    v = {1: 0}
    trace: list[dict[int, int]] = []
    for d in range(min(max_edits, n + m) + 1):
        trace.append(dict(v))
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[k] = x
            if x >= n and y >= m:
                return _backtrack(trace, a, b)
    return None


def _backtrack(trace: list[dict[int, int]], a: list[str], b: list[str]) -> list[tuple[str, str]]:
    x, y = len(a), len(b)
    ops: list[tuple[str, str]] = []
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        down = k == -d or (k != d and v[k - 1] < v[k + 1])
        prev_k = k + 1 if down else k - 1
        prev_x = v[prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            ops.append(("same", a[x - 1]))
            x, y = x - 1, y - 1
        if d > 0:
            ops.append(("added", b[prev_y]) if down else ("removed", a[prev_x]))
        x, y = prev_x, prev_y
    ops.reverse()
    return ops


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
    def same(self) -> bool:
        return self.a == self.b


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
