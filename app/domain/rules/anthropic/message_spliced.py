"""message-spliced: a ``message_start`` before the open message stopped."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import each_sighted
from . import ANTHROPIC, SPEC


def check(evidence: Evidence) -> Iterator[Hit]:
    yield from each_sighted(evidence, "spliced_message")


RULE = Rule(
    id="message-spliced",
    dialects=ANTHROPIC,
    severity="warning",
    title="message spliced into another",
    what="A `message_start` arrives while the message before it is still open (no "
    "`message_stop`): two responses spliced into one body.",
    why="A stream holds exactly one message, `message_start` to `message_stop`. An "
    "intermediary that retries upstream mid-stream, or duplicates the frame, splices a second "
    "generation in: the first one's cut blocks are lost or merged into the second, and its "
    "usage is overwritten. Streamscope reads the open message as ended there (in a file: the "
    "new message is the next stream).",
    breaks=(
        "anthropic-python / anthropic-sdk-typescript `messages.stream` (the snapshot restarts at "
        "the second `message_start`; the first message is lost, or rejected as an event-order "
        "violation, as Claude Code does)",
        "Vercel AI SDK `@ai-sdk/anthropic` (both generations merged into one step; signed "
        "thinking then fails to replay)",
    ),
    sources=(
        "https://github.com/vercel/ai/pull/18332",
        "https://github.com/BerriAI/litellm/pull/32479",
        "https://github.com/BerriAI/litellm/pull/33859",
        SPEC,
    ),
    check=check,
)
