"""Amazon Bedrock's ConverseStream request (``POST /model/{modelId}/converse-stream``): the
model in the URL, ``system`` text blocks, ``messages`` whose ``content`` blocks are ``text``,
``toolUse`` (``toolUseId``, ``name``, ``input``), ``toolResult`` (``toolUseId``, ``content``,
``status``) or ``reasoningContent``; ``toolConfig`` with ``toolSpec`` tools and
``toolChoice``; ``inferenceConfig``.
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .common import arguments, as_list, as_object, message, other, params, string
from .common import text as shown
from .model import TOOL_CHOICE, Draft, Message, Param, Part, Tool

_MODEL = re.compile(r"/model/([^/]+)/converse")
PARAMS = (
    ("max_tokens", "inferenceConfig.maxTokens"),
    ("temperature", "inferenceConfig.temperature"),
    (TOOL_CHOICE, "toolConfig.toolChoice"),
    ("reasoning", "additionalModelRequestFields.thinking"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    found: list[Param] = []
    if url and (match := _MODEL.search(url)):
        found.append(Param("model", "URL", unquote(match.group(1))))
    if url and "/converse-stream" in url:
        found.append(Param("stream", "URL", True))
    found += params(body, PARAMS)
    messages: list[Message] = []
    if body.get("system") is not None:
        messages.append(message("system", blocks(body["system"])))
    messages += [
        message(as_object(m).get("role"), blocks(as_object(m).get("content")))
        for m in as_list(body.get("messages"))
    ]
    return Draft(params=found, tools=tools(body.get("toolConfig")), messages=messages)


def tools(config: Any) -> list[Tool]:
    found = []
    for tool in as_list(as_object(config).get("tools")):
        spec = as_object(as_object(tool).get("toolSpec"))
        found.append(
            Tool(
                string(spec.get("name")),
                "toolSpec",
                string(spec.get("description")),
                as_object(spec.get("inputSchema")).get("json"),
            )
        )
    return found


def blocks(content: Any) -> list[Part]:
    parts = []
    for block in as_list(content):
        block = as_object(block)
        if "text" in block:
            parts.append(Part("text", text=shown(block.get("text"))))
        elif "toolUse" in block:
            use = as_object(block["toolUse"])
            parts.append(
                Part(
                    "tool_call",
                    name=string(use.get("name")),
                    id=string(use.get("toolUseId")),
                    arguments=arguments(use.get("input")),
                )
            )
        elif "toolResult" in block:
            result = as_object(block["toolResult"])
            texts = [
                shown(as_object(c).get("text", as_object(c).get("json")))
                for c in as_list(result.get("content"))
            ]
            parts.append(
                Part(
                    "tool_result",
                    text="\n".join(t for t in texts if t is not None),
                    id=string(result.get("toolUseId")),
                    error=result.get("status") == "error",
                )
            )
        elif "reasoningContent" in block:
            reasoning = as_object(as_object(block["reasoningContent"]).get("reasoningText"))
            parts.append(Part("thinking", text=shown(reasoning.get("text")) or "(reasoning)"))
        else:
            parts.append(other(next(iter(block), None)))
    return parts
