"""usage-not-cumulative: a ``message_delta`` usage count below the one before it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...events import Usage
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from . import ANTHROPIC, SPEC


def _counts(usage: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}


def check(evidence: Evidence) -> Iterator[Hit]:
    last: dict[str, int] = {}
    drops: list[tuple[int | None, str]] = []
    for event in evidence.of(Usage):
        counts = _counts(event.usage)
        if event.source == "message_start":  # a message of its own (spliced): counts anew
            last = counts
            continue
        if event.source != "message_delta":
            continue
        if "iterations" in event.usage:
            # Compaction: the top-level counts are the last iteration's, each iteration's own
            # counts in ``iterations`` (the API does so): nothing to compare.
            last = counts
            continue
        fell = [k for k, v in counts.items() if k in last and v < last[k]]
        if fell:
            key = fell[0]
            drops.append(
                (event.raw, f"message_delta usage {key} is {counts[key]} after {last[key]}")
            )
        last.update(counts)
    if drops:
        raw, message = drops[0]
        more = f" ({len(drops) - 1} more message_delta(s) like it)" if len(drops) > 1 else ""
        yield Hit(f"{message}: counts sent per delta, not cumulative{more}", raw, len(drops))


RULE = Rule(
    id="usage-not-cumulative",
    dialects=ANTHROPIC,
    severity="warning",
    title="message_delta usage not cumulative",
    what="A count in a `message_delta` usage (`output_tokens`, `input_tokens`, the cache "
    "counts) is lower than the one the message already reported: counts sent per delta, or "
    "reset to 0, where the spec says they are cumulative.",
    why="The spec: the token counts in `message_delta` usage are cumulative. The SDKs keep the "
    "last value as the message's usage, so a per-delta increment or a 0 undercounts tokens and "
    "cost; clients that sum deltas instead overcount on a correct server.",
    breaks=(
        "anthropic-python / anthropic-sdk-typescript `get_final_message()` usage (the last "
        "value overwrites: undercounted)",
        "usage and cost trackers (Cline, LibreChat, tensorzero, envoy ai-gateway were fixed for "
        "the cumulative semantics)",
    ),
    sources=(
        "https://github.com/cline/cline/issues/4346",
        "https://github.com/tensorzero/tensorzero/issues/5481",
        "https://github.com/LibreChat-AI/agents/pull/308",
        SPEC,
    ),
    check=check,
)
