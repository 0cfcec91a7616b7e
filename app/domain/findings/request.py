"""The request parameters the request-aware rules judge a stream against (docs/rules.md).

A stream knows its request where the capture holds it: a live run or a proxied call (the body
as sent, scrubbed), a timed capture's header, a HAR entry's posted body. The rules read the
same view of it as the page and ``inspect --json`` (``app/domain/requests/``: the parameters
under their common names), never the body a second way; only the parameters that shape a
stream are read, and a request whose body could not be read is no request to judge by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..requests.model import TOOL_CHOICE, RequestView


@dataclass(frozen=True)
class RequestParams:
    include_usage: bool | None  # stream_options.include_usage, None when not sent
    n: int | None
    logprobs: bool | None
    top_logprobs: int | None
    max_tokens: int | None
    tool_choice: Any
    tools: int  # how many tools were offered


def request_params(view: RequestView | None) -> RequestParams | None:
    """The parameters of a stream's request, from its view; None when there is no request
    body to read (none kept, or one its reader could not read: ``note``)."""
    if view is None or view.note is not None:
        return None
    options = view.param("stream_options")
    include = options.get("include_usage") if isinstance(options, dict) else None
    logprobs = view.param("logprobs")
    return RequestParams(
        include_usage=include if isinstance(include, bool) else None,
        n=_int(view.param("n")),
        logprobs=logprobs if isinstance(logprobs, bool) else None,
        top_logprobs=_int(view.param("top_logprobs")),
        max_tokens=_int(view.param("max_tokens")),
        tool_choice=view.param(TOOL_CHOICE),
        tools=len(view.tools),
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
