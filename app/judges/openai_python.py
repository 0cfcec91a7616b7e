"""openai-python's stream helpers on the captured bytes: ``chat.completions.stream`` (its
``ChatCompletionStreamState`` assembles the chunks) and ``responses.stream``."""

from __future__ import annotations

from typing import Any

from .fake import BASE_URL, http_client

PACKAGE = "openai"


def read(api: str, body: bytes) -> dict[str, Any]:
    import openai

    client = openai.OpenAI(
        api_key="judge", base_url=f"{BASE_URL}/v1", http_client=http_client(body), max_retries=0
    )
    if api == "responses.stream":
        return _responses(client)
    with client.chat.completions.stream(
        model="judge", messages=[{"role": "user", "content": "judge"}]
    ) as stream:
        for _event in stream:
            pass
        completion = stream.get_final_completion()
    choice = next((c for c in completion.choices if c.index == 0), None)
    message = choice.message if choice is not None else None
    calls = (message.tool_calls or []) if message is not None else []
    usage = completion.usage
    return {
        "text": (message.content or "") if message is not None else "",
        "tool_calls": [
            {
                "id": call.id,
                "name": call.function.name,
                "arguments": call.function.arguments,
            }
            for call in calls
        ],
        "finish": choice.finish_reason if choice is not None else None,
        "usage": (
            {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}
            if usage is not None
            else None
        ),
    }


def _responses(client: Any) -> dict[str, Any]:
    with client.responses.stream(model="judge", input="judge") as stream:
        for _event in stream:
            pass
        response = stream.get_final_response()
    calls = [item for item in response.output if item.type == "function_call"]
    usage = response.usage
    return {
        "text": response.output_text,
        "tool_calls": [
            {"id": call.call_id, "name": call.name, "arguments": call.arguments} for call in calls
        ],
        "finish": response.status,
        "usage": (
            {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}
            if usage is not None
            else None
        ),
    }
