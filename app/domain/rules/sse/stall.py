"""stall: a gap between events over the stall threshold."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.engine import ANY
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule


def check(evidence: Evidence) -> Iterator[Hit]:
    stalls = evidence.metrics.stalls if evidence.stream.timed else []
    if stalls:
        longest = max(stalls, key=lambda s: s["gap_ms"])
        yield Hit(
            f"{len(stalls)} gap(s) of {evidence.stall_ms:g} ms or more, the longest "
            f"{longest['gap_ms']:.0f} ms after {longest['after_ms']:.0f} ms",
            int(stalls[0]["raw"]),
            len(stalls),
        )


RULE = Rule(
    id="stall",
    dialects=ANY,
    severity="info",
    title="stall",
    what="Two events with output are further apart than the stall threshold (`STREAMSCOPE_STALL_MS`, 250 ms by default).",
    why="A stall is legal, but users see the answer freeze; long ones hit client and proxy read timeouts.",
    breaks=("clients and proxies with a read timeout shorter than the gap",),
    sources=("https://github.com/deepseek-ai/DeepSeek-V3/issues/1608",),
    check=check,
)
