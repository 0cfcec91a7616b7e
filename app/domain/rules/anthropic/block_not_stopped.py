"""block-not-stopped: a content block still open when the stream ended."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import ANTHROPIC, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "block_not_stopped")


RULE = Rule(
    id="block-not-stopped",
    dialects=(*ANTHROPIC, "bedrock-converse", "cohere"),
    severity="warning",
    title="content block never stopped",
    what="A content block opened with `content_block_start` has no `content_block_stop` "
    "(Bedrock: `contentBlockStop`; Cohere: `content-end` / `tool-call-end`) before the stream "
    "ended.",
    why="Every block is opened and closed in order; clients finish a block (a tool call's "
    "input parsed as JSON, a text part ended) at its stop. Without it a tool call may never "
    "be issued and its input is left as partial JSON. Streamscope closes the block at the end "
    "of the stream.",
    breaks=(
        "Claude Code behind Anthropic-compatible proxies (a tool call that never completes, "
        "stuck at `Waiting...`)",
        "anthropic-sdk-kotlin before its fix (content dropped or misattributed)",
    ),
    sources=(
        "https://github.com/farion1231/cc-switch/pull/2303",
        "https://github.com/xemantic/anthropic-sdk-kotlin/pull/147",
        SPEC,
    ),
    check=check,
)
