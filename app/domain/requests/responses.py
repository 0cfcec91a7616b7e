"""OpenAI Responses' request (``POST /v1/responses``): ``instructions``, and ``input`` as a
string or items: messages (``role`` with ``content`` a string or ``input_text`` /
``output_text`` parts), ``function_call`` (``call_id``, ``name``, ``arguments``),
``function_call_output`` (``call_id``, ``output``) and ``reasoning``; ``tools`` as functions
(``name``, ``parameters`` at the top) or built-in tools by type.
https://platform.openai.com/docs/api-reference/responses/create"""

from __future__ import annotations

from typing import Any

from .chat import content_parts
from .common import arguments, as_list, as_object, message, other, params, string
from .common import text as shown
from .model import TOOL_CHOICE, Draft, Message, Part, Tool

PARAMS = (
    ("model", "model"),
    ("stream", "stream"),
    ("stream_options", "stream_options"),
    ("max_tokens", "max_output_tokens"),
    ("temperature", "temperature"),
    (TOOL_CHOICE, "tool_choice"),
    ("response_format", "text.format"),
    ("include", "include"),
    ("top_logprobs", "top_logprobs"),
    ("reasoning", "reasoning"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    messages: list[Message] = []
    if body.get("instructions") is not None:
        messages.append(message("instructions", [Part("text", text=shown(body["instructions"]))]))
    value = body.get("input")
    if isinstance(value, str):
        messages.append(message("user", [Part("text", text=shown(value))]))
    else:
        messages += [item(i) for i in as_list(value)]
    return Draft(params=params(body, PARAMS), tools=tools(body.get("tools")), messages=messages)


def tools(value: Any) -> list[Tool]:
    found = []
    for tool in as_list(value):
        tool = as_object(tool)
        found.append(
            Tool(
                string(tool.get("name")),
                string(tool.get("type")),
                string(tool.get("description")),
                tool.get("parameters"),
            )
        )
    return found


def item(value: Any) -> Message:
    """One input item: a message by its role; a call, a call's output or reasoning as the
    role that made it (the model's, the client's)."""
    entry = as_object(value)
    kind = entry.get("type")
    if kind == "function_call" or kind == "custom_tool_call":
        args = entry.get("arguments", entry.get("input"))
        call = Part(
            "tool_call",
            name=string(entry.get("name")),
            id=string(entry.get("call_id")),
            arguments=arguments(args),
        )
        return message("assistant", [call])
    if kind in ("function_call_output", "custom_tool_call_output"):
        result = Part(
            "tool_result", text=shown(entry.get("output")), id=string(entry.get("call_id"))
        )
        return message("tool", [result])
    if kind == "reasoning":
        summary = "\n".join(
            str(as_object(s).get("text", "")) for s in as_list(entry.get("summary"))
        )
        return message("assistant", [Part("thinking", text=summary or "(encrypted reasoning)")])
    if kind in (None, "message"):
        return message(entry.get("role"), content_parts(entry.get("content")))
    return message(entry.get("role") or "item", [other(kind)])
