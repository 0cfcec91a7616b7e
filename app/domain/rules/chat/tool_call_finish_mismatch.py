"""tool-call-finish-mismatch: tool calls were made but the finish reason is not tool_calls."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Finish, ToolCallEnd
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY

TOOL_REASONS = frozenset({"tool_calls", "function_call"})


def check(evidence: Evidence) -> Iterator[Hit]:
    called = {end.choice for end in evidence.of(ToolCallEnd)}
    for finish in evidence.of(Finish):
        if finish.choice in called and finish.reason not in TOOL_REASONS:
            called.discard(finish.choice)
            yield Hit(
                f"choice {finish.choice} made tool calls but finished with {finish.reason!r}",
                finish.raw,
            )


RULE = Rule(
    id="tool-call-finish-mismatch",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="calls made, finish not tool_calls",
    what="A choice made tool calls but finished with another reason than `tool_calls` (or `function_call`).",
    why="Agent loops run tools when the finish reason says so: with `stop` the calls are never run and the conversation ends.",
    breaks=('LangChain and agent loops that branch on `finish_reason == "tool_calls"`',),
    sources=("https://github.com/huggingface/text-generation-inference/issues/2794",),
    check=check,
)
