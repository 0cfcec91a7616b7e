"""meta-only-event: an SSE event with id: or retry: fields and no data."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.engine import ANY
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(
        evidence,
        "meta_only_event",
        lambda n, line: f"{n} event(s) with fields but no data (the first at line {line})",
    )


RULE = Rule(
    id="meta-only-event",
    dialects=ANY,
    severity="error",
    title="event without data",
    what="An SSE event has `id:`, `retry:` or `event:` lines but no `data:` line.",
    why="The SSE spec dispatches no event without data, but some client decoders yield one with empty data and then fail to parse it as JSON.",
    breaks=("openai-python (JSONDecodeError on the empty data)",),
    sources=(
        "https://github.com/openai/openai-python/issues/2722",
        "https://github.com/openai/openai-python/issues/3833",
    ),
    check=check,
)
