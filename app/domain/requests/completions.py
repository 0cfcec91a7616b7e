"""OpenAI's legacy completions request (``POST /v1/completions``): a ``prompt`` (a string, a
list of strings, or tokens) and an optional ``suffix``; ``logprobs`` is a count here.
https://platform.openai.com/docs/api-reference/completions/create"""

from __future__ import annotations

from typing import Any

from .common import message, params
from .common import text as shown
from .model import Draft, Message, Part

PARAMS = (
    ("model", "model"),
    ("stream", "stream"),
    ("stream_options", "stream_options"),
    ("n", "n"),
    ("max_tokens", "max_tokens"),
    ("temperature", "temperature"),
    ("logprobs", "logprobs"),
)


def read(body: dict[str, Any], url: str | None) -> Draft:
    messages: list[Message] = []
    prompt = body.get("prompt")
    if isinstance(prompt, list) and all(isinstance(p, str) for p in prompt):
        messages += [message("prompt", [Part("text", text=shown(p))]) for p in prompt]
    elif prompt is not None:  # a string, or tokens (shown as JSON)
        messages.append(message("prompt", [Part("text", text=shown(prompt))]))
    if body.get("suffix") is not None:
        messages.append(message("suffix", [Part("text", text=shown(body["suffix"]))]))
    return Draft(params=params(body, PARAMS), messages=messages)
