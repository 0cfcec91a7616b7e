"""Cohere's chat request: v2 (``POST /v2/chat``) ``messages`` by role (``system``, ``user``,
``assistant`` with ``tool_calls`` and ``tool_plan``, ``tool`` with ``tool_call_id``), tools as
functions; v1 (``POST /v1/chat``) ``preamble``, ``chat_history`` and ``message``.
https://docs.cohere.com/reference/chat"""

from __future__ import annotations

from typing import Any

from .chat import chat_message, tools
from .common import as_list, as_object, message, params
from .common import text as shown
from .model import TOOL_CHOICE, Draft, Message, Part

PARAMS = (
    ("model", "model"),
    ("stream", "stream"),
    ("max_tokens", "max_tokens"),
    ("temperature", "temperature"),
    (TOOL_CHOICE, "tool_choice"),
    ("response_format", "response_format"),
    ("logprobs", "logprobs"),
    ("reasoning", "thinking"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    messages: list[Message] = []
    if body.get("preamble") is not None:  # v1
        messages.append(message("system", [Part("text", text=shown(body["preamble"]))]))
    for turn in as_list(body.get("chat_history")):  # v1: {"role": "USER", "message": ...}
        turn = as_object(turn)
        messages.append(message(turn.get("role"), [Part("text", text=shown(turn.get("message")))]))
    for entry in as_list(body.get("messages")):
        found = chat_message(entry)
        plan = as_object(entry).get("tool_plan")
        if isinstance(plan, str):
            found = Message(found.role, (Part("thinking", text=shown(plan)), *found.parts))
        messages.append(found)
    if isinstance(body.get("message"), str):  # v1
        messages.append(message("user", [Part("text", text=shown(body["message"]))]))
    return Draft(params=params(body, PARAMS), tools=tools(body.get("tools")), messages=messages)
