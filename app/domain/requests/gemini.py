"""Google Gemini's request (``POST .../models/{model}:streamGenerateContent``): the model in
the URL, ``contents`` with a ``role`` (``user``, ``model``) and ``parts`` (``text``, a
``thought``, ``functionCall`` with ``args``, ``functionResponse`` with ``response``, inline
data), ``systemInstruction``, ``tools`` with ``functionDeclarations``, ``toolConfig`` and
``generationConfig``. The REST API takes snake_case names too, so both are read.
https://ai.google.dev/api/generate-content"""

from __future__ import annotations

import re
from typing import Any

from .common import MISSING, arguments, as_list, as_object, message, other, params, string
from .common import text as shown
from .model import TOOL_CHOICE, Draft, Message, Param, Part, Tool

_MODEL = re.compile(r"/models/([^/:?#]+)")
PARAMS = (
    ("n", "generationConfig.candidateCount"),
    ("max_tokens", "generationConfig.maxOutputTokens"),
    ("temperature", "generationConfig.temperature"),
    (TOOL_CHOICE, "toolConfig.functionCallingConfig"),
    ("response_format", "generationConfig.responseMimeType"),
    ("logprobs", "generationConfig.responseLogprobs"),
    ("top_logprobs", "generationConfig.logprobs"),
    ("reasoning", "generationConfig.thinkingConfig"),
)


# Values that are the client's own JSON (a call's arguments, a result, a schema): their keys
# are kept as sent.
AS_SENT = frozenset(
    {
        "args",
        "response",
        "parameters",
        "parametersJsonSchema",
        "responseSchema",
        "responseJsonSchema",
    }
)


def camel(body: Any) -> Any:
    """The body with snake_case keys read as their camelCase names (``generation_config``
    as ``generationConfig``), at every depth; a key sent both ways keeps the camelCase one."""
    if isinstance(body, list):
        return [camel(v) for v in body]
    if not isinstance(body, dict):
        return body
    out: dict[str, Any] = {}
    for key, value in body.items():
        name = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key) if "_" in key else key
        if name not in out or name == key:
            out[name] = value if name in AS_SENT else camel(value)
    return out


def read(body: dict[str, Any], url: str | None) -> Draft:
    body = camel(body)
    found: list[Param] = []
    model = body.get("model", MISSING)
    if model is not MISSING:
        found.append(Param("model", "model", model))
    elif url and (match := _MODEL.search(url)):
        found.append(Param("model", "URL", match.group(1)))
    if url and ":streamGenerateContent" in url:
        found.append(Param("stream", "URL", True))
    found += params(body, PARAMS)
    messages: list[Message] = []
    system = body.get("systemInstruction")
    if system is not None:
        messages.append(message("system", parts_of(as_object(system).get("parts"), system)))
    messages += [
        message(as_object(c).get("role") or "user", parts_of(as_object(c).get("parts"), c))
        for c in as_list(body.get("contents"))
    ]
    return Draft(params=found, tools=tools(body.get("tools")), messages=messages)


def tools(value: Any) -> list[Tool]:
    found = []
    for tool in as_list(value):
        tool = as_object(tool)
        declared = as_list(tool.get("functionDeclarations"))
        for function in declared:
            function = as_object(function)
            schema = function.get("parameters", function.get("parametersJsonSchema"))
            found.append(
                Tool(
                    string(function.get("name")),
                    "function",
                    string(function.get("description")),
                    schema,
                )
            )
        if not declared:  # a built-in tool: {"googleSearch": {}}, {"codeExecution": {}}
            found += [Tool(name, name) for name in tool if name != "functionDeclarations"]
    return found


def parts_of(value: Any, whole: Any) -> list[Part]:
    if isinstance(whole, str):  # systemInstruction as a bare string
        return [Part("text", text=shown(whole))]
    parts = []
    for part in as_list(value):
        part = as_object(part)
        call, response = as_object(part.get("functionCall")), part.get("functionResponse")
        if "functionCall" in part:
            parts.append(
                Part(
                    "tool_call",
                    name=string(call.get("name")),
                    id=string(call.get("id")),
                    arguments=arguments(call.get("args")),
                )
            )
        elif response is not None:
            response = as_object(response)
            parts.append(
                Part(
                    "tool_result",
                    text=shown(response.get("response")),
                    name=string(response.get("name")),
                    id=string(response.get("id")),
                )
            )
        elif "text" in part:
            kind = "thinking" if part.get("thought") is True else "text"
            parts.append(Part(kind, text=shown(part.get("text"))))
        else:
            parts.append(other(next(iter(part), None)))
    return parts
