"""Ollama's request: ``POST /api/chat`` with ``messages`` (``content``, an assistant's
``tool_calls`` with ``arguments`` as an object, ``thinking``, a tool message's ``tool_name``),
or ``POST /api/generate`` with ``prompt`` and ``system``; ``tools`` as functions; sampling in
``options`` (``num_predict``, ``temperature``).
https://docs.ollama.com/api/chat"""

from __future__ import annotations

from typing import Any

from .chat import tools
from .common import arguments, as_list, as_object, message, params, string
from .common import text as shown
from .model import TOOL_RESULT, Draft, Message, Part

PARAMS = (
    ("model", "model"),
    ("stream", "stream"),
    ("max_tokens", "options.num_predict"),
    ("temperature", "options.temperature"),
    ("response_format", "format"),
    ("logprobs", "logprobs"),
    ("top_logprobs", "top_logprobs"),
    ("reasoning", "think"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    messages: list[Message] = []
    if "messages" not in body:  # /api/generate
        if body.get("system") is not None:
            messages.append(message("system", [Part("text", text=shown(body["system"]))]))
        if body.get("prompt") is not None:
            messages.append(message("prompt", [Part("text", text=shown(body["prompt"]))]))
    messages += [chat_message(m) for m in as_list(body.get("messages"))]
    return Draft(params=params(body, PARAMS), tools=tools(body.get("tools")), messages=messages)


def chat_message(value: Any) -> Message:
    entry = as_object(value)
    role = entry.get("role")
    parts: list[Part] = []
    if isinstance(entry.get("thinking"), str):
        parts.append(Part("thinking", text=shown(entry["thinking"])))
    if role == "tool":
        parts.append(
            Part(TOOL_RESULT, text=shown(entry.get("content")), name=string(entry.get("tool_name")))
        )
    elif entry.get("content") is not None and entry.get("content") != "":
        parts.append(Part("text", text=shown(entry.get("content"))))
    for call in as_list(entry.get("tool_calls")):
        function = as_object(as_object(call).get("function"))
        parts.append(
            Part(
                "tool_call",
                name=string(function.get("name")),
                id=string(as_object(call).get("id")),
                arguments=arguments(function.get("arguments")),
            )
        )
    if as_list(entry.get("images")):
        parts.append(Part("other", text=f"{len(entry['images'])} images"))
    return message(role, parts)
