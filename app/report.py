"""What ``inspect`` prints: the human-readable report (one block per stream), or JSON.

The readable report never parses the logprob entries (they stay JSON text, as in the JSON
output): it counts them from the timeline, so it costs no more than ``--json``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import orjson

from .captures import Capture
from .domain.events import Logprobs
from .domain.stream import Stream
from .domain.summary import diagnostic_json, summarize

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


def _logprob_counts(stream: Stream) -> Counter[tuple[int, str]]:
    """Logprob entries per (choice, field), counted without parsing them."""
    counts: Counter[tuple[int, str]] = Counter()
    for event in stream.events:
        if isinstance(event, Logprobs):
            counts[event.choice, event.field] += event.count
    return counts


def _choice_lines(
    choice: dict[str, Any], calls: list[dict[str, Any]], logprobs: Counter[tuple[int, str]]
) -> list[str]:
    message = choice["message"]
    lines = [f"choice {choice['index']} (finish: {choice['finish_reason']})"]
    content = message.get("content")
    for key, value in message.items():
        if key.startswith("reasoning") and isinstance(value, str):
            lines += _block(f"reasoning ({key})", value)
    if isinstance(content, list):
        for part in content:
            if part.get("type") == "thinking":
                lines += _block("reasoning (thinking part)", part["thinking"][0]["text"])
            elif part.get("type") == "text":
                lines += _block("text (part)", part["text"])
    elif content is not None:
        lines += _block("text", content)
    if message.get("refusal") is not None:
        lines += _block("refusal", message["refusal"])
    for number, call in enumerate(message.get("tool_calls") or []):
        info = next((c for c in calls if c["call"] == number), None)
        status = info["status"] if info else "unknown"
        verdict = {"valid": "valid JSON", "empty": "no arguments"}.get(status) or (
            f"INVALID JSON: {info['error'] if info else '?'}"
        )
        fn = call["function"]
        lines.append(
            f"{INDENT}tool call {number}: {_known(fn['name'])} (id {_known(call['id'])}) - {verdict}"
        )
        lines += [
            INDENT * 2 + line for line in _pretty_arguments(fn["arguments"], status).splitlines()
        ]
    for field in ("content", "refusal"):
        if logprobs[choice["index"], field]:
            lines.append(f"{INDENT}logprobs: {logprobs[choice['index'], field]} {field} tokens")
    return lines


def _metrics_lines(metrics: dict[str, Any]) -> list[str]:
    tokens = metrics["output_tokens"]
    count = f"{tokens} ({metrics['tokens_source']})" if tokens is not None else "unknown"
    lines = [f"output tokens: {count}; chunks with choices: {metrics['chunks']}"]
    lines.append(f"timing: {metrics['timing_note']}")
    if metrics["timing_source"] != "reads":
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


def render_json(capture: Capture, stall_ms: float = 250.0) -> bytes:
    """``inspect --json``: the format, capture diagnostics and every stream's summary."""
    document = {
        "format": capture.format,
        "compression": capture.compression,
        "diagnostics": [diagnostic_json(d) for d in capture.diagnostics],
        "streams": [summarize(stream, stall_ms) for stream in capture.streams],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def render(capture: Capture, name: str, stall_ms: float = 250.0) -> str:
    out = [
        f"{name}: format {capture.format or 'unknown'}"
        + (f" ({capture.compression})" if capture.compression else "")
        + f", {len(capture.streams)} stream{'s' if len(capture.streams) != 1 else ''}"
    ]
    for diag in capture.diagnostics:
        out.append(f"  [{diag.severity}] {diag.code}: {diag.message}")
    for stream in capture.streams:
        summary = summarize(stream, stall_ms)
        completion = summary["completion"]  # logprobs are JSON fragments: counted, not read
        logprobs = _logprob_counts(stream)
        out.append("")
        out.append(
            f"Stream {stream.index + 1} ({stream.origin}): model {_known(completion['model'])}, "
            f"id {_known(completion['id'])}"
        )
        for choice in completion["choices"]:
            calls = [c for c in summary["tool_calls"] if c["choice"] == choice["index"]]
            out += [INDENT + line for line in _choice_lines(choice, calls, logprobs)]
        usage = completion.get("usage")
        out.append(f"{INDENT}usage: {json.dumps(usage) if usage is not None else 'none'}")
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
    return "\n".join(out) + "\n"
