"""usage: Anthropic's token counts, at ``message_start`` and cumulative in ``message_delta``.

Anthropic's streaming page (https://docs.anthropic.com/en/docs/build-with-claude/streaming,
"Event types"): ``message_start`` carries a ``Message`` with empty content, and so its
``usage`` (``input_tokens``, ``output_tokens`` so far); "the token counts shown in the usage
field of the ``message_delta`` event are cumulative". anthropic-python's accumulator (its
``messages.stream``, a judge: docs/judges.md) starts from message_start's usage and lets each
message_delta overwrite ``output_tokens``, and the other counts it sends: the usage a client
ends with is the last message_delta's ``output_tokens`` and message_start's ``input_tokens``
unless a delta sent its own. This case checks those numbers are there and fit together; the
rule ``usage-not-cumulative`` (docs/rules.md) says a count that falls between deltas.
"""

from __future__ import annotations

from typing import Any

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user

SPEC = "https://docs.anthropic.com/en/docs/build-with-claude/streaming"
COUNTS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check(result: Result) -> Verdict:
    run = result.first
    payloads = [p for p in run.chunks() if isinstance(p, dict)]
    starts = [p for p in payloads if p.get("type") == "message_start"]
    if not starts or not isinstance(starts[0].get("message"), dict):
        return failed("no `message_start` with a message came")
    start = starts[0]["message"].get("usage")
    if not isinstance(start, dict):
        return failed("`message_start`'s message has no `usage`")
    if not _count(start.get("input_tokens")):
        return failed(f"`message_start` usage has no `input_tokens` count: {start}")
    if "output_tokens" in start and not _count(start["output_tokens"]):
        return failed(f"`message_start` usage `output_tokens` is not a count: {start}")
    deltas = [
        p["usage"]
        for p in payloads
        if p.get("type") == "message_delta" and isinstance(p.get("usage"), dict)
    ]
    if not deltas:
        return failed("no `message_delta` carried `usage`")
    last = deltas[-1]
    output = last.get("output_tokens")
    if not _count(output) or output == 0:
        return failed(f"the last `message_delta` usage has `output_tokens` {output!r}, not > 0")
    before = start.get("output_tokens", 0)
    if output < before and "iterations" not in last:
        return failed(
            f"the last `message_delta` says {output} output_tokens, fewer than message_start's "
            f"{before}: counts are cumulative ({SPEC})"
        )
    # Compaction: a usage with ``iterations`` has the last iteration's counts at its top level
    # (each iteration's own in ``iterations``), so they are not compared with message_start's.
    compared = () if "iterations" in last else COUNTS
    for name in compared:
        if name != "output_tokens" and last.get(name) is not None:
            if not _count(last[name]):
                return failed(f"the last `message_delta` usage `{name}` is not a count: {last}")
            if _count(start.get(name)) and last[name] < start[name]:
                return failed(
                    f"the last `message_delta` says {last[name]} {name}, fewer than "
                    f"message_start's {start[name]}: counts are cumulative ({SPEC})"
                )
    # What anthropic-python's accumulator ends with: these counts, overwritten in turn.
    final = {**start, **{k: v for k, v in last.items() if v is not None}}
    return passed(
        f"message_start {start['input_tokens']} input tokens, the last of {len(deltas)} "
        f"message_delta(s) {output} output tokens (from {before}): the message's usage is "
        f"{final['input_tokens']} in, {final['output_tokens']} out"
    )


CASE = Case(
    name="usage",
    apis=("anthropic",),
    expects="`message_start` usage has `input_tokens`; the last `message_delta` usage has "
    "`output_tokens` > 0, no fewer than message_start's (the counts are cumulative).",
    request=request,
    check=check,
)
