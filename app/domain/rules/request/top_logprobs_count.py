"""top-logprobs-count: top_logprobs asked for k alternatives, another number came."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ...events import Logprobs
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is None or not request.top_logprobs:
        return
    first = next((e for e in evidence.stream.events if type(e) is Logprobs), None)
    entry = _first_entry(first) if first is not None else None
    if entry is None or first is None:
        return
    got = entry.get("top_logprobs")
    count = len(got) if isinstance(got, list) else 0
    if count != request.top_logprobs:
        yield Hit(
            f"top_logprobs asked for {request.top_logprobs}, the first token has {count}", first.raw
        )


def _first_entry(event: Logprobs) -> dict[str, Any] | None:
    try:
        entries = orjson.loads(b"[" + event.entries + b"]")
    except orjson.JSONDecodeError:
        return None
    return entries[0] if entries and isinstance(entries[0], dict) else None


RULE = Rule(
    id="top-logprobs-count",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="top_logprobs count",
    what="The request asked for `top_logprobs: k` and the entries carry another number of alternatives.",
    why="Alternative views and calibration tools expect k alternatives per token.",
    breaks=("tools that show or score the top-k alternatives",),
    sources=(
        "https://github.com/InternLM/lmdeploy/issues/1548",
        "https://github.com/huggingface/text-generation-inference/issues/2108",
    ),
    check=check,
    needs_request=True,
)
