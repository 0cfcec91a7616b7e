"""usage-every-chunk: usage on every chunk, beside the choices."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    if evidence.sightings.count("usage_with_choices") >= 2:
        yield from sighted(
            evidence, "usage_with_choices", lambda n, _: f"{n} chunks carried usage beside choices"
        )


RULE = Rule(
    id="usage-every-chunk",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="usage on every chunk",
    what="Chunks that carry choices also carry `usage` (on two or more of them).",
    why="The spec sends usage once, in a last chunk with empty `choices`, when `stream_options.include_usage` asks for it. Clients that take usage as the end of the stream stop reading and drop the content after it; others add every chunk's usage up.",
    breaks=(
        "clients that treat a usage chunk as the last one (content dropped)",
        "token counters that sum usage per chunk",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/issues/7262",
        "https://github.com/memex-lab/dart_agent_core/issues/23",
    ),
    check=check,
)
