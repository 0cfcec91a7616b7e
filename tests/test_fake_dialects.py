"""The fake upstream speaks every dialect as its API does: each official SDK, pointed at the
fake as a client (anthropic, openai's Responses and legacy completions, google-genai, ollama),
reads each real capture and gets what tests/captures/dialects/expected says that SDK gets from
the same bytes; and the chat fake's faults apply to every dialect."""

from __future__ import annotations

import json
import warnings

import httpx
import pytest

from .dialects.common import captures, expected, same_arguments

pytestmark = pytest.mark.integration  # starts real servers on loopback

KEY = "sdk-canary-key-0123456789abcdef"
FAST = {"X-Gap-Ms": "0"}
FIELDS = ("final_text", "reasoning_text", "stop_reason")


def root(fake) -> str:
    return f"http://127.0.0.1:{fake.port}"


def check(name: str, got: dict) -> None:
    """The SDK's reading through the fake against what it read from the bytes directly."""
    want = expected(name)
    for field in FIELDS:
        assert got[field] == want[field], field
    assert [(c["id"], c["name"]) for c in got["tool_calls"]] == [
        (c["id"], c["name"]) for c in want["tool_calls"]
    ]
    for ours, theirs in zip(got["tool_calls"], want["tool_calls"], strict=True):
        assert same_arguments(ours["arguments"], theirs["arguments"]), (ours, theirs)
    usage = want["usage"] or {}
    assert {k: got["usage"].get(k) for k in usage} == usage


# ---------------------------------------------------------------------- the SDKs
def anthropic_reads(fake, name: str) -> dict:
    import anthropic

    client = anthropic.Anthropic(
        base_url=root(fake), api_key=KEY, max_retries=0, default_headers=FAST
    )
    partial: dict[int, list[str]] = {}
    with (
        warnings.catch_warnings(),
        client.messages.stream(
            model=f"replay:{name}", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        # its models warn on block types they do not know (compaction): not ours to fail on
        warnings.simplefilter("ignore", UserWarning)
        for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                partial.setdefault(event.index, []).append(event.delta.partial_json)
        message = stream.get_final_message()
        blocks = message.to_dict(warnings=False)["content"]
    client.close()
    # anthropic 2.14 sends the key as a bearer token, and its own API version
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {KEY}"
    assert fake.requests[-1]["headers"]["anthropic-version"]
    return {
        "final_text": "".join(b.get("text", "") for b in blocks if b["type"] == "text"),
        "reasoning_text": "".join(b.get("thinking", "") for b in blocks if b["type"] == "thinking"),
        "tool_calls": [
            {"id": b["id"], "name": b["name"], "arguments": "".join(partial.get(i, []))}
            for i, b in enumerate(blocks)
            if b["type"] in ("tool_use", "server_tool_use", "mcp_tool_use")
        ],
        "stop_reason": message.stop_reason,
        "usage": message.usage.to_dict(warnings=False),
    }


def responses_reads(fake, name: str) -> dict:
    import openai

    client = openai.OpenAI(base_url=fake.url, api_key=KEY, max_retries=0, default_headers=FAST)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Pydantic serializer warnings", UserWarning)
        with client.responses.stream(model=f"replay:{name}", input="hi") as stream:
            response = stream.get_final_response()
            final = response.to_dict(mode="json", warnings=False)
            usage = response.usage.model_dump(mode="json") if response.usage else {}
    client.close()
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {KEY}"
    output = final["output"]
    return {
        "final_text": "".join(
            part.get("text", "")
            for item in output
            if item["type"] == "message"
            for part in item["content"]
            if part["type"] == "output_text"
        ),
        "reasoning_text": "\n\n".join(  # the expected files join reasoning parts as paragraphs
            part["text"]
            for item in output
            if item["type"] == "reasoning"
            for part in [*item.get("summary", []), *(item.get("content") or [])]
        ),
        "tool_calls": [
            {"id": item["call_id"], "name": item["name"], "arguments": item["arguments"]}
            for item in output
            if item["type"] == "function_call"
        ],
        "stop_reason": final["status"],
        "usage": usage,
    }


def completions_reads(fake, name: str) -> dict:
    import openai

    client = openai.OpenAI(base_url=fake.url, api_key=KEY, max_retries=0, default_headers=FAST)
    texts: dict[int, str] = {}
    finish, usage = None, None
    for chunk in client.completions.create(model=f"replay:{name}", prompt="hi", stream=True):
        for choice in chunk.choices:
            texts[choice.index] = texts.get(choice.index, "") + choice.text
            finish = choice.finish_reason or finish
        usage = chunk.usage.to_dict() if chunk.usage else usage
    client.close()
    assert fake.requests[-1]["path"] == "/v1/completions"
    return {
        "final_text": texts.get(0, ""),
        "reasoning_text": "",
        "tool_calls": [],
        "stop_reason": finish,
        "usage": usage or {},
    }


def gemini_reads(fake, name: str) -> dict:
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=root(fake), headers=FAST)
    client = genai.Client(api_key=KEY, http_options=options)
    text, thoughts, calls, finish, usage = "", "", [], None, None
    for chunk in client.models.generate_content_stream(model=f"replay:{name}", contents="hi"):
        for candidate in chunk.candidates or []:
            finish = candidate.finish_reason or finish
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.text is not None and part.thought:
                    thoughts += part.text
                elif part.text is not None:
                    text += part.text
                if part.function_call:
                    call = part.function_call
                    args = None if call.args is None else json.dumps(call.args)
                    calls.append({"id": call.id, "name": call.name, "arguments": args})
        usage = chunk.usage_metadata or usage
    client.close()
    sent = fake.requests[-1]
    assert sent["headers"]["x-goog-api-key"] == KEY and KEY not in sent["path"]
    assert sent["path"].endswith(f"/models/replay:{name}:streamGenerateContent?alt=sse")
    return {
        "final_text": text,
        "reasoning_text": thoughts,
        "tool_calls": calls,
        "stop_reason": finish.name if hasattr(finish, "name") else finish,
        "usage": usage.model_dump(mode="json", exclude_none=True) if usage else {},
    }


def ollama_reads(fake, name: str) -> dict:
    import ollama

    generate = "-generate-" in name
    with ollama.Client(
        host=root(fake), headers={**FAST, "Authorization": f"Bearer {KEY}"}
    ) as client:
        if generate:
            chunks = list(client.generate(model=f"replay:{name}", prompt="hi", stream=True))
        else:
            messages = [{"role": "user", "content": "hi"}]
            chunks = list(client.chat(model=f"replay:{name}", messages=messages, stream=True))
    assert fake.requests[-1]["path"] == ("/api/generate" if generate else "/api/chat")
    said = [c if generate else c.message for c in chunks]
    last = chunks[-1]
    return {
        "final_text": "".join((s.response if generate else s.content) or "" for s in said),
        "reasoning_text": "".join(s.thinking or "" for s in said),
        "tool_calls": [
            {
                "id": None,
                "name": call.function.name,
                "arguments": json.dumps(call.function.arguments),
            }
            for s in said
            if not generate
            for call in s.tool_calls or []
        ],
        "stop_reason": last.done_reason,
        "usage": {"prompt_eval_count": last.prompt_eval_count, "eval_count": last.eval_count},
    }


READERS = {
    "anthropic-": anthropic_reads,
    "responses-": responses_reads,
    "completion-": completions_reads,
    "gemini-": gemini_reads,
    "ollama-": ollama_reads,
}
CASES = [(prefix, name) for prefix in READERS for name in captures(prefix)]


def test_every_capture_the_fake_replays_is_covered():
    assert len(CASES) == 11 + 9 + 4 + 9 + 7


@pytest.mark.parametrize(("prefix", "name"), CASES, ids=[name for _, name in CASES])
def test_each_sdk_reads_each_capture_through_the_fake_as_from_the_bytes(fake, prefix, name):
    check(name, READERS[prefix](fake, name))


# ---------------------------------------------------------------------- framing and faults
def post(fake, path: str, body: dict, headers: dict | None = None) -> httpx.Response:
    return httpx.post(root(fake) + path, json=body, headers={**FAST, **(headers or {})}, timeout=20)


def test_gemini_answers_the_json_array_without_alt_sse_and_sse_with_it(fake):
    name = "gemini-2-0-flash-exp-text.sse"
    path = f"/v1beta/models/replay:{name}:streamGenerateContent"
    array = post(fake, path, {"contents": []})
    sse = post(fake, path + "?alt=sse", {"contents": []})
    assert array.headers["content-type"].startswith("application/json")
    assert sse.headers["content-type"] == "text/event-stream"
    elements = json.loads(array.content)
    payloads = [json.loads(line[5:]) for line in sse.text.splitlines() if line.startswith("data:")]
    assert len(elements) == 3 and elements == payloads
    dropped = post(fake, f"/v1beta/models/array:{name}:streamGenerateContent?alt=sse", {})
    assert json.loads(dropped.content) == elements  # a proxy that drops alt=sse


DIALECT_PATHS = {
    "anthropic": ("/v1/messages", {"x-api-key": KEY}),
    "responses": ("/v1/responses", {"Authorization": f"Bearer {KEY}"}),
    "completions": ("/v1/completions", {"Authorization": f"Bearer {KEY}"}),
    "gemini": ("/v1beta/models/{model}:streamGenerateContent?alt=sse", {"x-goog-api-key": KEY}),
    "ollama": ("/api/chat", {"Authorization": f"Bearer {KEY}"}),
}


def call(fake, dialect: str, model: str) -> httpx.Response:
    path, headers = DIALECT_PATHS[dialect]
    body = {} if "{model}" in path else {"model": model}
    return post(fake, path.format(model=model), body, headers)


@pytest.mark.parametrize("dialect", list(DIALECT_PATHS))
def test_the_faults_apply_to_every_dialect(fake, dialect):
    assert call(fake, dialect, "500").status_code == 500
    assert "text/html" in call(fake, dialect, "html:503").headers["content-type"]
    echoed = call(fake, dialect, "echo-key")
    assert echoed.status_code == 401 and KEY in echoed.text  # the key read from its own header
    assert call(fake, dialect, "429always").headers["retry-after"] == "0"
    assert call(fake, dialect, "redirect").status_code == 302
    assert call(fake, dialect, "nope").status_code == 404
    slow = call(fake, dialect, "slow:3")
    assert slow.status_code == 200 and all(f"word{i} " in slow.text for i in range(3))
    split = call(fake, dialect, "echo-split")
    assert KEY in split.text and "FOREIGN" in split.text
    with pytest.raises(httpx.HTTPError):  # closed mid-body
        call(fake, dialect, "close:60")
