"""role-missing: a choice whose deltas never carried a role."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    if evidence.dialect != "chat-completions":
        return  # legacy completions have no role
    with_role = {s.value[0] for s in evidence.sightings.samples("role")}
    if evidence.sightings.count("role") > len(evidence.sightings.samples("role")):
        return  # more roles than samples: every choice had one
    for sighting in evidence.sightings.samples("choice_new"):
        if sighting.value not in with_role:
            yield Hit(f"choice {sighting.value} never sent a role", sighting.raw)


RULE = Rule(
    id="role-missing",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="no role",
    what="No delta of a choice carried `role`.",
    why="The first delta of a choice names its role; clients that start a message when the role comes never start one.",
    breaks=(
        "@langchain/openai (a tool-call delta before any role is not an AIMessageChunk: its tool calls are dropped)",
        "LangWatch's python tracer (KeyError: 0)",
    ),
    sources=(
        "https://github.com/langchain-ai/langchainjs/pull/11157",
        "https://github.com/langwatch/langwatch/issues/6196",
        "https://github.com/maximhq/bifrost/issues/6523",
    ),
    check=check,
)
