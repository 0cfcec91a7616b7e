"""The request parameters the request-aware rules judge a stream against (docs/rules.md).

A stream knows its request where the capture holds it: a live run or a proxied call (the body
as sent, scrubbed), a timed capture's header, a HAR entry (``params``: the parameters of its
posted body). Only the parameters that shape a stream are read; anything else is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BODY_KEYS = frozenset({"messages", "input", "prompt", "contents", "model"})
PARAM_KEYS = (
    "stream",
    "stream_options",
    "n",
    "logprobs",
    "top_logprobs",
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "tool_choice",
    "tools",
)


@dataclass(frozen=True)
class RequestParams:
    include_usage: bool | None  # stream_options.include_usage, None when not sent
    n: int | None
    logprobs: bool | None
    top_logprobs: int | None
    max_tokens: int | None
    tool_choice: Any
    tools: int  # how many tools were offered


def request_params(request: dict[str, Any] | None) -> RequestParams | None:
    """The parameters of a stream's request: from its body, or from the ``params`` or
    ``body`` it keeps; None when there is no request body to read."""
    if not isinstance(request, dict):
        return None
    body: Any = request.get("params")
    if not isinstance(body, dict):
        body = request.get("body")
    if not isinstance(body, dict):
        body = request if BODY_KEYS & request.keys() else None
    if body is None:
        return None
    options = body.get("stream_options")
    include = options.get("include_usage") if isinstance(options, dict) else None
    tools = body.get("tools")
    return RequestParams(
        include_usage=include if isinstance(include, bool) else None,
        n=_int(body.get("n")),
        logprobs=body.get("logprobs") if isinstance(body.get("logprobs"), bool) else None,
        top_logprobs=_int(body.get("top_logprobs")),
        max_tokens=_int(
            body.get("max_tokens", body.get("max_completion_tokens", body.get("max_output_tokens")))
        ),
        tool_choice=body.get("tool_choice"),
        tools=len(tools) if isinstance(tools, list) else 0,
    )


def params_of(body: Any) -> dict[str, Any]:
    """What a request-summary keeps of a posted body for the rules (a HAR entry's)."""
    if not isinstance(body, dict):
        return {}
    return {k: body[k] for k in PARAM_KEYS if k in body and k != "tools"} | (
        {"tools": [{} for _ in body["tools"]]} if isinstance(body.get("tools"), list) else {}
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
