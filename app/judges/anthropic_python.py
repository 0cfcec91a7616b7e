"""anthropic-python's ``messages.stream`` on the captured bytes (its ``MessageStream``
accumulates the events into the final message)."""

from __future__ import annotations

from typing import Any

from .fake import BASE_URL, http_client

PACKAGE = "anthropic"
# The blocks that are calls: the client's own tools, and those the server runs (web search, code
# execution) or an MCP server does.
CALLS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


def read(api: str, body: bytes) -> dict[str, Any]:
    import anthropic

    client = anthropic.Anthropic(
        api_key="judge",
        base_url=BASE_URL,
        http_client=http_client(body, _http_package()),
        max_retries=0,
    )
    with client.messages.stream(
        model="judge", max_tokens=1024, messages=[{"role": "user", "content": "judge"}]
    ) as stream:
        for _event in stream:
            pass
        message = stream.get_final_message()
    blocks: list[Any] = list(message.content)
    return {
        "text": "".join(b.text for b in blocks if b.type == "text"),
        "reasoning": "".join(b.thinking for b in blocks if b.type == "thinking"),
        "tool_calls": [
            {"id": b.id, "name": b.name, "arguments": b.input} for b in blocks if b.type in CALLS
        ],
        "finish": message.stop_reason,
        "usage": {
            "prompt_tokens": message.usage.input_tokens,
            "completion_tokens": message.usage.output_tokens,
        },
    }


def _http_package() -> str:
    """The HTTP package this anthropic is built on (its base client imports it): httpx2 from
    anthropic 2 on, httpx before."""
    from anthropic import _base_client

    return "httpx2" if hasattr(_base_client, "httpx2") else "httpx"
