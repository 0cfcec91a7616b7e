"""OpenAI chat completions' request (``POST /v1/chat/completions``, and the many servers that
speak it): ``messages`` by role, each with ``content`` (a string or typed parts), an
assistant's ``tool_calls`` and a tool message's ``tool_call_id``; ``tools`` as functions.
https://platform.openai.com/docs/api-reference/chat/create"""

from __future__ import annotations

from typing import Any

from .common import arguments, as_list, as_object, function_tool, message, other, params, string
from .common import text as shown
from .model import TOOL_CHOICE, TOOL_RESULT, Draft, Message, Part, Tool

PARAMS = (
    ("model", "model"),
    ("stream", "stream"),
    ("stream_options", "stream_options"),
    ("n", "n"),
    ("max_tokens", "max_tokens"),
    ("max_tokens", "max_completion_tokens"),
    ("max_tokens", "max_output_tokens"),  # not chat's; some servers take it
    ("temperature", "temperature"),
    (TOOL_CHOICE, "tool_choice"),
    ("response_format", "response_format"),
    ("logprobs", "logprobs"),
    ("top_logprobs", "top_logprobs"),
    ("reasoning", "reasoning_effort"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    return Draft(
        params=params(body, PARAMS),
        tools=tools(body.get("tools")),
        messages=[chat_message(m) for m in as_list(body.get("messages"))],
    )


def tools(value: Any) -> list[Tool]:
    found = []
    for tool in as_list(value):
        name, kind, description, schema = function_tool(tool)
        found.append(Tool(name, kind, description, schema))
    return found


def chat_message(value: Any) -> Message:
    """One message: its content's parts, then its tool calls; a tool message's content is
    the result of the call it names."""
    entry = as_object(value)
    role = entry.get("role")
    parts = content_parts(entry.get("content"))
    if role == "tool":
        result = "\n".join(p.text or "" for p in parts if p.kind == "text")
        parts = [Part(TOOL_RESULT, text=result, id=string(entry.get("tool_call_id")))]
    for call in as_list(entry.get("tool_calls")):
        call = as_object(call)
        function = as_object(call.get("function"))
        parts.append(
            Part(
                "tool_call",
                name=string(function.get("name")),
                id=string(call.get("id")),
                arguments=arguments(function.get("arguments")),
            )
        )
    if isinstance(entry.get("reasoning_content"), str):  # DeepSeek's reasoning sent back
        parts.insert(0, Part("thinking", text=shown(entry["reasoning_content"])))
    return message(role, parts)


def content_parts(content: Any) -> list[Part]:
    """A message's ``content``: a string, or parts (``text``, ``image_url``, ``input_audio``,
    ``file``, ``refusal``)."""
    if isinstance(content, str):
        return [Part("text", text=shown(content))]
    parts = []
    for part in as_list(content):
        if isinstance(part, str):
            parts.append(Part("text", text=shown(part)))
            continue
        part = as_object(part)
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text") or (kind is None and "text" in part):
            parts.append(Part("text", text=shown(part.get("text"))))
        elif kind == "refusal":
            parts.append(Part("text", text=shown(part.get("refusal"))))
        else:
            parts.append(other(kind))
    return parts
