"""tools-ignored: a tool call was required, none came."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...events import ToolCallStart
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is None or not request.tools or not _required(request.tool_choice):
        return
    if not evidence.of(ToolCallStart):
        yield Hit(f"tool_choice was {_said(request.tool_choice)}, but no tool call came")


def _required(choice: Any) -> bool:
    return choice == "required" or (isinstance(choice, dict) and choice.get("type") == "function")


def _said(choice: Any) -> str:
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return f"the function {name!r}"
    return repr(choice)


RULE = Rule(
    id="tools-ignored",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="required tool call ignored",
    what="The request's `tool_choice` required a tool call (`required`, or a named function) and the stream made none.",
    why="Servers that ignore `tool_choice` answer in text; agent code that forces a call to get structured output gets none.",
    breaks=("agent loops and structured-output code that force a tool call",),
    sources=(
        "https://github.com/ollama/ollama/issues/8421",
        "https://github.com/Blaizzy/mlx-vlm/issues/1045",
        "https://github.com/google-ai-edge/LiteRT-LM/issues/2471",
    ),
    check=check,
    needs_request=True,
)
