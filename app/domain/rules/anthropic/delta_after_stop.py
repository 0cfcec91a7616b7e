"""delta-after-stop: a ``content_block_delta`` for a block after its ``content_block_stop``."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import ANTHROPIC, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "delta_after_stop")


RULE = Rule(
    id="delta-after-stop",
    dialects=ANTHROPIC,
    severity="warning",
    title="delta after its block stopped",
    what="A `content_block_delta` names a block that a `content_block_stop` already closed.",
    why="The streaming spec opens a block, sends its deltas, then stops it; a stopped block is "
    "final. Clients that finish a block at its stop (a tool call issued with its input, a text "
    "part ended) drop the later delta or attach it to nothing; the SDKs' accumulators append "
    "it to the block anyway, so clients disagree on the text. Streamscope reads it into the "
    "block, as the SDK does.",
    breaks=(
        "clients that end a block at `content_block_stop` (the Vercel AI SDK's Anthropic "
        "provider ends the text or tool-call part there)",
    ),
    sources=(SPEC + " (the spec, no public issue found)",),
    check=check,
)
