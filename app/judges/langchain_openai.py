"""langchain-openai's ``ChatOpenAI(...).stream`` on the captured bytes: the chunks it yields,
added up as LangChain adds them (``AIMessageChunk.__add__``)."""

from __future__ import annotations

from typing import Any

from .fake import BASE_URL, http_client

PACKAGE = "langchain-openai"


def read(api: str, body: bytes) -> dict[str, Any]:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(
        model="judge",
        api_key="judge",  # type: ignore[arg-type]
        base_url=f"{BASE_URL}/v1",
        http_client=http_client(body),
        max_retries=0,
        stream_usage=True,
    )
    full: Any = None
    for chunk in model.stream("judge"):
        full = chunk if full is None else full + chunk
    if full is None:
        return {"text": "", "tool_calls": [], "finish": None, "usage": None}
    content = full.content
    if isinstance(content, list):
        content = "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str) or part.get("type") == "text"
        )
    calls = [
        {"id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")}
        for c in list(full.tool_calls) + list(full.invalid_tool_calls)
    ]
    usage = full.usage_metadata
    return {
        "text": content,
        "tool_calls": calls,
        "finish": full.response_metadata.get("finish_reason"),
        "usage": (
            {
                "prompt_tokens": usage.get("input_tokens"),
                "completion_tokens": usage.get("output_tokens"),
            }
            if usage
            else None
        ),
    }
