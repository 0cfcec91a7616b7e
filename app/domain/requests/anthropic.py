"""Anthropic Messages' request (``POST /v1/messages``): ``system`` (a string or text blocks),
``messages`` whose ``content`` is a string or blocks (``text``, ``tool_use`` with its ``input``,
``tool_result`` with its ``tool_use_id``, ``thinking``, ``redacted_thinking``, images and
documents); ``tools`` with their ``input_schema`` (server tools by their type).
https://docs.anthropic.com/en/api/messages"""

from __future__ import annotations

from typing import Any

from .common import arguments, as_list, as_object, message, other, params, string
from .common import text as shown
from .model import TOOL_CHOICE, Draft, Message, Part, Tool

PARAMS = (
    ("model", "model"),
    ("stream", "stream"),
    ("max_tokens", "max_tokens"),
    ("temperature", "temperature"),
    (TOOL_CHOICE, "tool_choice"),
    ("reasoning", "thinking"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    messages: list[Message] = []
    system = body.get("system")
    if system is not None:
        messages.append(message("system", blocks(system)))
    messages += [
        message(as_object(m).get("role"), blocks(as_object(m).get("content")))
        for m in as_list(body.get("messages"))
    ]
    return Draft(params=params(body, PARAMS), tools=tools(body.get("tools")), messages=messages)


def tools(value: Any) -> list[Tool]:
    found = []
    for tool in as_list(value):
        tool = as_object(tool)
        found.append(
            Tool(
                string(tool.get("name")),
                string(tool.get("type")) or "custom",
                string(tool.get("description")),
                tool.get("input_schema"),
            )
        )
    return found


def blocks(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", text=shown(content))]
    parts = []
    for block in as_list(content):
        block = as_object(block)
        kind = block.get("type")
        if kind == "text":
            parts.append(Part("text", text=shown(block.get("text"))))
        elif kind in ("server_tool_use", "tool_use"):
            parts.append(
                Part(
                    "tool_call",
                    name=string(block.get("name")),
                    id=string(block.get("id")),
                    arguments=arguments(block.get("input")),
                )
            )
        elif kind == "tool_result":
            inner = block.get("content")
            result = (
                "\n".join(p.text or "" for p in blocks(inner) if p.kind == "text")
                if isinstance(inner, list)
                else shown(inner)
            )
            parts.append(
                Part(
                    "tool_result",
                    text=result,
                    id=string(block.get("tool_use_id")),
                    error=block.get("is_error") is True,
                )
            )
        elif kind == "thinking":
            parts.append(Part("thinking", text=shown(block.get("thinking"))))
        elif kind == "redacted_thinking":
            parts.append(Part("thinking", text="(redacted thinking)"))
        else:
            parts.append(other(kind))
    return parts
