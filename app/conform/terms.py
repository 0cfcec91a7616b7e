"""What each API calls the same thing: a case says ``finish(result, "length")`` and gets
``length`` in chat completions and ``max_tokens`` in Anthropic Messages (docs/conform.md)."""

from __future__ import annotations

from .model import Result

FINISH: dict[str, dict[str, str]] = {
    "chat": {
        "stop": "stop",
        "length": "length",
        "tool_calls": "tool_calls",
        "stop_sequence": "stop",
    },
    "anthropic": {
        "stop": "end_turn",
        "length": "max_tokens",
        "tool_calls": "tool_use",
        "stop_sequence": "stop_sequence",
    },
}
CHAT_AND_ANTHROPIC = ("chat", "anthropic")


def finish(result: Result, meaning: str) -> str:
    """The finish reason, as the result's API spells it, that means ``meaning`` (chat's name)."""
    return FINISH.get(result.context.api, FINISH["chat"])[meaning]


def anthropic(result_or_api: Result | str) -> bool:
    api = result_or_api if isinstance(result_or_api, str) else result_or_api.context.api
    return api == "anthropic"
