"""The recording proxy with real clients (docs/proxy.md): the openai SDK (chat completions
streamed and not, Responses), the anthropic SDK and httpx, pointed at ``/proxy/local/...`` in
front of the fake upstream of each dialect, under the dev server and under gunicorn. What the
client received is what the upstream sent, read for read; the recording holds the same reads
at the same times (within scheduling noise) and reads as the same dialect with the same output
as the capture file; the client's key reached the upstream and nothing else."""

from __future__ import annotations

import json
import warnings
from typing import Any

import httpx
import httpx2
import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.summary import summarize

from .fake_dialects import FOREIGN_KEY
from .proxy_helpers import (
    KEY,
    PLAIN_KEY,
    finished_call,
    nowhere,
    proxy_server,
    reads_transport,
    recorded_reads,
    recording,
    root,
    same_times,
    writes,
)
from .test_live_apis import direct

pytestmark = pytest.mark.integration  # starts real servers on loopback

GAP = {"X-Gap-Ms": "20"}  # the fake's pace: reads far enough apart to be told apart in time
NOISE_MS = 10.0  # the recorded times' median distance from the upstream's writes


@pytest.fixture(scope="module", params=["dev-server", "gunicorn"])
def server(request, tmp_path_factory, fake):
    args = ["--production", "--threads", "16"] if request.param == "gunicorn" else []
    live = proxy_server(tmp_path_factory.mktemp(f"proxy-{request.param}"), fake, *args).start()
    yield live
    live.stop()


def check_call(server, fake, reads: list[bytes], capture_name: str | None, dialect: str) -> dict:
    """What every passed-through call must show: the client's reads are the upstream's writes;
    the recording has them with their times; it reads as the capture does."""
    sent = fake.requests[-1]
    assert reads == writes(sent), (
        "the client got the upstream's reads, one for one",
        [len(r) for r in reads],
        [len(w) for w in writes(sent)],
    )
    call = finished_call(server)
    assert call["state"] == "done" and call["status"] == 200 and call["dialect"] == dialect
    assert call["recording_end"] == "done" and call["url"] == f"/c/{call['recording']}"
    raw, _ = recording(server, call["recording"])
    recorded = recorded_reads(raw)
    assert [data for _, data in recorded] == writes(sent)
    assert same_times([t for t, _ in recorded], [t for t, _ in sent["writes"]]) < NOISE_MS
    (stream,) = read_capture(raw).streams
    assert stream.dialect_name == dialect and stream.end_reason == "done"
    if capture_name is not None:
        assert plain(summarize(stream))["normalized"] == direct(f"x:{capture_name}")["normalized"]
    return call


def openai_client(server: Any, reads: Any, headers: dict[str, str] | None = None) -> Any:
    """The openai SDK pointed at the proxy, its reads seen by ``reads``."""
    import openai

    return openai.OpenAI(
        api_key=KEY,
        base_url=f"{server.url}/proxy/local/v1",
        max_retries=0,
        default_headers=headers,
        http_client=httpx.Client(transport=reads),
    )


def test_the_openai_sdk_streams_chat_completions_through_the_proxy(server, fake):
    reads = reads_transport()
    client = openai_client(server, reads, GAP)
    name = "openai-gpt4o-tool-parallel.sse"
    chunks = list(
        client.chat.completions.create(
            model=f"replay:{name}", messages=[{"role": "user", "content": "hi"}], stream=True
        )
    )
    client.close()
    deltas = [k.choices[0].delta for k in chunks if k.choices]
    names = [c.function.name for d in deltas for c in d.tool_calls or [] if c.function.name]
    assert len(names) == 2  # the capture's two parallel calls, as the SDK read them
    sent = fake.requests[-1]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {KEY}"
    assert sent["headers"]["accept-encoding"] == "identity"
    call = check_call(server, fake, reads.answers[-1], name, "chat-completions")
    assert call["method"] == "POST" and call["path"] == "/v1/chat/completions"
    assert call["model"] == f"replay:{name}" and call["tokens"] and call["ttft_ms"] > 0


def test_the_openai_sdk_streams_responses_through_the_proxy(server, fake):
    reads = reads_transport()
    client = openai_client(server, reads, GAP)
    name = "responses-openai-gpt-4o-function-call.sse"
    with client.responses.stream(model=f"replay:{name}", input="hi") as stream:
        final = stream.get_final_response()
    client.close()
    assert final.status == "completed"
    assert [item.type for item in final.output] == ["function_call"]
    assert fake.requests[-1]["path"] == "/v1/responses"
    check_call(server, fake, reads.answers[-1], name, "openai-responses")


def test_the_openai_sdk_gets_a_whole_answer_through_the_proxy(server, fake):
    reads = reads_transport()
    client = openai_client(server, reads)
    completion = client.chat.completions.create(
        model="json", messages=[{"role": "user", "content": "hi"}]
    )
    client.close()
    assert completion.choices[0].message.content == "A whole answer, not streamed."
    call = check_call(server, fake, reads.answers[-1], None, "chat-completions")
    raw, _ = recording(server, call["recording"])
    (stream,) = read_capture(raw).streams
    normalized = plain(summarize(stream))["normalized"]
    assert normalized["outputs"][0]["text"] == "A whole answer, not streamed."
    assert normalized["usage"]["output_tokens"] == 6


def test_the_anthropic_sdk_streams_messages_through_the_proxy(server, fake):
    import anthropic

    reads = reads_transport(httpx2)  # this SDK speaks through httpx2, a fork of httpx
    client = anthropic.Anthropic(
        api_key=KEY,
        base_url=f"{server.url}/proxy/local",
        max_retries=0,
        default_headers=GAP,
        http_client=httpx2.Client(transport=reads),
    )
    name = "anthropic-claude-3-5-sonnet-text-then-two-tools.sse"
    with (
        warnings.catch_warnings(),
        client.messages.stream(
            model=f"replay:{name}", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        warnings.simplefilter("ignore", UserWarning)
        message = stream.get_final_message()
    client.close()
    assert [block.type for block in message.content] == ["text", "tool_use", "tool_use"]
    sent = fake.requests[-1]
    assert sent["path"] == "/v1/messages" and KEY in json.dumps(sent["headers"])
    check_call(server, fake, reads.answers[-1], name, "anthropic-messages")


# (path under /proxy/local, body, the header the key goes in, capture, dialect)
RAW = [
    (
        "/v1beta/models/replay:gemini-2-5-pro-thinking.sse:streamGenerateContent?alt=sse",
        {"contents": [{"parts": [{"text": "hi"}]}]},
        "x-goog-api-key",
        "gemini-2-5-pro-thinking.sse",
        "gemini",
    ),
    (
        "/v1beta/models/array:gemini-2-5-flash-json-array-thinking-tools.json:streamGenerateContent",
        {"contents": [{"parts": [{"text": "hi"}]}]},
        "x-goog-api-key",
        "gemini-2-5-flash-json-array-thinking-tools.json",
        "gemini",
    ),
    (
        "/api/chat",
        {"model": "replay:ollama-chat-llama3-2-tool-call-docs.ndjson", "messages": []},
        "authorization",
        "ollama-chat-llama3-2-tool-call-docs.ndjson",
        "ollama",
    ),
    (
        "/api/generate",
        {"model": "replay:ollama-generate-llama3-text.ndjson", "prompt": "hi"},
        "authorization",
        "ollama-generate-llama3-text.ndjson",
        "ollama",
    ),
    (
        "/v1/completions",
        {"model": "replay:completion-openai-gpt-3-5-turbo-instruct-usage.sse", "prompt": "hi"},
        "api-key",
        "completion-openai-gpt-3-5-turbo-instruct-usage.sse",
        "completions",
    ),
]


@pytest.mark.parametrize(
    ("path", "body", "header", "name", "dialect"), RAW, ids=[r[3] for r in RAW]
)
def test_httpx_gets_every_dialect_through_the_proxy(
    server, fake, path, body, header, name, dialect
):
    reads = reads_transport()
    value = f"Bearer {PLAIN_KEY}" if header == "authorization" else PLAIN_KEY
    with (
        httpx.Client(transport=reads, timeout=30) as client,
        client.stream(
            "POST",
            f"{server.url}/proxy/local{path}",
            json=body,
            headers={header: value, **GAP},
        ) as answer,
    ):
        assert answer.status_code == 200
        body_read = answer.read()
    sent = fake.requests[-1]
    assert sent["path"] == path and sent["headers"][header] == value
    assert body_read == b"".join(writes(sent))
    call = check_call(server, fake, reads.answers[-1], name, dialect)
    if "gemini" in name:
        assert call["model"] == path.split("/models/")[1].split(":streamGenerate")[0]
    direct_answer = httpx.post(f"{root(fake)}{path}", json=body, headers={header: value})
    assert direct_answer.content == body_read, "the same bytes as straight from the upstream"


@pytest.mark.parametrize("model", ["echo-key", "echo-split"])
def test_a_key_the_upstream_echoes_reaches_the_client_and_is_recorded_nowhere(server, fake, model):
    with httpx.Client(timeout=30) as client:
        answer = client.post(
            f"{server.url}/proxy/local/v1/responses",
            json={"model": model, "input": "hi"},
            headers={"Authorization": f"Bearer {KEY}"},
        )
    assert KEY in answer.text  # the client's own key, as its upstream sent it back
    assert answer.content == b"".join(writes(fake.requests[-1]))
    call = finished_call(server)
    raw, _ = recording(server, call["recording"])
    assert KEY.encode() not in raw and FOREIGN_KEY.encode() not in raw
    assert KEY not in json.dumps(call)


SLASHED_KEY = "proxy-canary/plain+not-key-shaped/8d3b"
BODY_SECRET = "plain-secret-value-77"


def test_a_key_echoed_with_json_escapes_is_recorded_nowhere(server, fake):
    """Issue 26, item 2: the upstream echoes the key with its first letter as ``\\u0070``, with
    its slashes as ``\\/``, and the request body (an ``api_key`` inside a JSON string) inside a
    string; before, all three were kept in the recording as they came."""
    body = {
        "model": "echo-escaped",
        "stream": True,
        "messages": [{"role": "user", "content": json.dumps({"api_key": BODY_SECRET})}],
    }
    with httpx.Client(timeout=30) as client:
        answer = client.post(
            f"{server.url}/proxy/local/v1/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {SLASHED_KEY}"},
        )
    assert answer.content == b"".join(writes(fake.requests[-1]))  # the app gets it all
    call = finished_call(server)
    raw, _ = recording(server, call["recording"])
    (stream,) = read_capture(raw).streams
    text = "".join(e.text for e in stream.events if getattr(e, "text", None))
    assert text.startswith("[redacted] | [redacted] | {"), text
    for secret in (SLASHED_KEY, SLASHED_KEY[1:], SLASHED_KEY.split("/")[-1], BODY_SECRET):
        assert secret.encode() not in raw and secret not in json.dumps(call), secret
        assert secret not in text


def test_no_key_is_on_disk_or_in_the_log(server):
    # every call above sent a canary key, and three had it echoed back
    nowhere(server, KEY, PLAIN_KEY, SLASHED_KEY, BODY_SECRET)
