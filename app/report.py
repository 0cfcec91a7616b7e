"""What ``inspect`` prints: the human-readable report (one block per stream), or JSON.

The readable report is drawn from the timeline, so it reads every dialect the same way
(docs/dialects.md). It never parses the logprob entries (they stay JSON text, as in the JSON
output): it counts them, so it costs no more than ``--json``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from . import jsonout
from .captures import Capture
from .domain.events import (
    Event,
    Finish,
    Logprobs,
    Meta,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallEnd,
)
from .domain.findings.engine import counts
from .domain.metrics import compute
from .domain.requests import request_view
from .domain.rules import find
from .domain.stream import Stream
from .domain.summary import diagnostic_json, dialect_of, fold, identity_of, summarize

INDENT = "  "


def _ms(value: float | None) -> str:
    return "unknown" if value is None else f"{value:,.1f} ms"


def _rate(value: float | None) -> str:
    return "unknown" if value is None else f"{value:,.1f}/s"


def _block(title: str, text: str, depth: int = 2) -> list[str]:
    pad = INDENT * depth
    lines = [f"{INDENT * (depth - 1)}{title}:"]
    lines += [pad + line for line in (text.splitlines() or [""])]
    return lines


def _pretty_arguments(arguments: str, status: str) -> str:
    if status != "valid":
        return arguments
    return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)


def _known(value: Any) -> str:
    return "unknown" if value is None else str(value)


@dataclass
class _Output:
    """What one output (a choice, a candidate) said, gathered from the timeline."""

    reasoning: dict[str, list[str]] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: list[ToolCallEnd] = field(default_factory=list)
    logprobs: Counter[str] = field(default_factory=Counter)
    stop: Any = None


def _outputs(events: list[Event], metas: list[Meta]) -> dict[int, _Output]:
    """Every dialect's outputs from its timeline (as it is, or folded: text runs read as one,
    as ``summarize`` reads them); logprob entries counted, never parsed. The meta events go
    to ``metas`` on the way (one pass for both)."""
    outputs: dict[int, _Output] = {}
    for event in events:
        kind = type(event)  # the commonest two by their exact type first
        if kind is TextDelta or kind is Logprobs:
            out = outputs.get(event.choice)  # type: ignore[attr-defined]
            if out is None:
                out = _output(outputs, event.choice)  # type: ignore[attr-defined]
                if out is None:
                    continue
            if kind is TextDelta:
                out.text.append(event.text)  # type: ignore[attr-defined]
            else:
                out.logprobs[event.field] += event.count  # type: ignore[attr-defined]
            continue
        choice = getattr(event, "choice", None)
        out = _output(outputs, choice)
        if out is None:
            if isinstance(event, Meta):
                metas.append(event)
        elif isinstance(event, TextDelta):
            out.text.append(event.text)
        elif isinstance(event, ReasoningDelta):
            out.reasoning.setdefault(event.field, []).append(event.text)
        elif isinstance(event, RefusalDelta):
            out.refusal.append(event.text)
        elif isinstance(event, ToolCallEnd):
            out.calls.append(event)
        elif isinstance(event, Logprobs):
            out.logprobs[event.field] += event.count
        elif isinstance(event, Finish):
            out.stop = event.reason if event.label is None else event.label
    return outputs


def _output(outputs: dict[int, _Output], choice: Any) -> _Output | None:
    """The output of a choice number (made when first seen); None when it is not a number."""
    if not isinstance(choice, int):
        return None
    out = outputs.get(choice)
    if out is None:
        out = outputs[choice] = _Output()
    return out


def _output_lines(index: int, out: _Output) -> list[str]:
    """The lines of one output, indented as they are printed (one level for the output, two
    for what it holds, three for the text of a block)."""
    one, two = INDENT, INDENT * 2
    lines = [f"{one}output {index} (stop: {_known(out.stop)})"]
    for name, parts in out.reasoning.items():
        lines += _block(f"reasoning ({name})", "".join(parts), 3)
    if out.text:
        lines += _block("text", "".join(out.text), 3)
    if out.refusal:
        lines += _block("refusal", "".join(out.refusal), 3)
    for number, call in enumerate(out.calls):
        verdict = {"valid": "valid JSON", "empty": "no arguments"}.get(call.status) or (
            f"INVALID JSON: {call.error}"
        )
        lines.append(
            f"{two}tool call {number}: {_known(call.name)} (id {_known(call.id)}) - {verdict}"
        )
        arguments = _pretty_arguments(call.arguments, call.status)
        lines += [INDENT * 3 + line for line in arguments.splitlines()]
    for name, count in out.logprobs.items():
        lines.append(f"{two}logprobs: {count} {name} tokens")
    return lines


def _metrics_lines(metrics: dict[str, Any]) -> list[str]:
    tokens = metrics["output_tokens"]
    count = f"{tokens} ({metrics['tokens_source']})" if tokens is not None else "unknown"
    lines = [f"output tokens: {count}; chunks with choices: {metrics['chunks']}"]
    lines.append(f"timing: {metrics['timing_note']}")
    if metrics["timing_source"] not in ("recorded", "synthesized"):
        if metrics["timing_source"] is not None:
            lines.append(f"TTFT {_ms(metrics['ttft_ms'])}, E2EL {_ms(metrics['e2el_ms'])}")
        return lines
    lines.append(
        f"TTFT {_ms(metrics['ttft_ms'])}, TTFO {_ms(metrics['ttfo_ms'])}, "
        f"E2EL {_ms(metrics['e2el_ms'])}, TPOT {_ms(metrics['tpot_ms'])}"
    )
    lines.append(
        f"ITL p50 {_ms(metrics['itl_p50_ms'])}, p95 {_ms(metrics['itl_p95_ms'])}, "
        f"max {_ms(metrics['itl_max_ms'])}; {_rate(metrics['tokens_per_s'])} tokens, "
        f"decode {_rate(metrics['decode_tokens_per_s'])}"
    )
    stalls = metrics["stalls"]
    listed = ", ".join(f"{s['gap_ms']:,.0f} ms at {s['after_ms']:,.0f} ms" for s in stalls[:10])
    more = f" and {len(stalls) - 10} more" if len(stalls) > 10 else ""
    lines.append(
        f"stalls (>= {metrics['stall_ms']:g} ms): {len(stalls)}"
        + (f": {listed}{more}" if stalls else "")
    )
    return lines


# What ``inspect --judges`` adds to a stream's summary: its verdicts, from the stream and its
# normalized outputs (app/judges/capture.py).
StreamJudge = Callable[[Stream, Any], list[dict[str, Any]]]


def json_document(
    capture: Capture, stall_ms: float = 250.0, judge: StreamJudge | None = None
) -> dict[str, Any]:
    """``inspect --json``: the format, capture diagnostics and every stream's summary with its
    findings; with ``judge``, each summary's ``judges`` (docs/judges.md)."""
    streams = [judged_summary(stream, stall_ms) for stream in capture.streams]
    if judge is not None:
        for stream, summary in zip(capture.streams, streams, strict=True):
            summary["judges"] = judge(stream, summary["normalized"])
    return {
        "format": capture.format,
        "format_reason": capture.format_reason,
        "compression": capture.compression,
        "diagnostics": [diagnostic_json(d) for d in capture.diagnostics],
        "streams": streams,
    }


def judged_summary(stream: Stream, stall_ms: float = 250.0) -> dict[str, Any]:
    """A stream's summary with its ``findings`` (docs/rules.md): the timeline folded and the
    metrics computed once for both."""
    timeline = fold(stream)
    metrics = compute(stream, stall_ms)
    summary = summarize(stream, stall_ms, timeline=timeline, metrics=metrics)
    found = find(stream, stall_ms=stall_ms, timeline=timeline, metrics=metrics)
    summary["findings"] = [finding.to_json() for finding in found]
    summary["finding_counts"] = counts(found)
    view = request_view(stream)
    summary["request"] = view.to_json() if view is not None else None
    return summary


def render_json(capture: Capture, stall_ms: float = 250.0) -> bytes:
    """``json_document`` as indented JSON, whole (the API, tests)."""
    # The newline appended by orjson: adding it after would copy the whole output once more.
    document = json_document(capture, stall_ms)
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def write_json(
    capture: Capture,
    out: Callable[[bytes], Any],
    stall_ms: float = 250.0,
    judge: StreamJudge | None = None,
) -> None:
    """``render_json``'s bytes, to ``out`` in pieces (``inspect --json``: the output is never
    whole in memory beside the capture, jsonout.py)."""
    jsonout.write(json_document(capture, stall_ms, judge), out)


def render(capture: Capture, name: str, stall_ms: float = 250.0) -> str:
    out = [
        f"{name}: format {capture.format or 'unknown'}"
        + (f" ({capture.compression})" if capture.compression else "")
        + f", {len(capture.streams)} stream{'s' if len(capture.streams) != 1 else ''}"
    ]
    for diag in capture.diagnostics:
        out.append(f"  [{diag.severity}] {diag.code}: {diag.message}")
    for stream in capture.streams:
        # Folded once for the summary and the outputs; the logprobs it leaves out are counted
        # from the whole timeline.
        timeline = fold(stream, with_logprobs=False)
        summary = summarize(
            stream, stall_ms, with_normalized=False, with_logprobs=False, timeline=timeline
        )
        metas: list[Meta] = []
        scored = Logprobs in timeline.present
        outputs = _outputs(stream.events if scored else timeline.runs, metas)
        response_id, model = identity_of(metas)
        out.append("")
        dialect = stream.dialect_name or "unknown dialect"
        out.append(
            f"Stream {stream.index + 1} ({stream.origin}): {dialect}, model {_known(model)}, "
            f"id {_known(response_id)}"
        )
        if stream.dialect is None and stream.dialect_reason:
            out.append(f"{INDENT}{stream.dialect_reason}")  # unknown_dialect, said first
        for index, output in sorted(outputs.items()):
            out += _output_lines(index, output)
        usage = dialect_of(stream).final_usage(summary["completion"])
        shown = orjson.dumps(usage).decode() if usage is not None else "none"
        out.append(f"{INDENT}usage: {shown}")
        out += [INDENT + line for line in _metrics_lines(summary["metrics"])]
        if stream.end_reason:
            ended = f"{INDENT}recording ended: {stream.end_reason}"
            out.append(ended + (f" ({stream.end_error})" if stream.end_error else ""))
        for error in summary["errors"]:
            code = f" (code {error['code']})" if error["code"] is not None else ""
            out.append(f"{INDENT}STREAM ERROR: {error['message']}{code}")
        for diag in summary["diagnostics"]:
            where = f"line {diag['line']}" if diag["line"] is not None else "end"
            out.append(f"{INDENT}[{diag['severity']}] {where}: {diag['code']}: {diag['message']}")
        for finding in find(stream, stall_ms=stall_ms, timeline=timeline):
            where = f"line {finding.line}" if finding.line is not None else "stream"
            out.append(
                f"{INDENT}{finding.severity.upper()} {finding.rule} ({where}): {finding.message}"
            )
    out.append("")  # the last newline, joined in (adding it after copies the report)
    return "\n".join(out)
