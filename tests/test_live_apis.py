"""Live mode and ``streamscope record`` speak each API (docs/live.md, "APIs"), through the real
server and its websocket against the fake upstream: each API's request goes to its own path
with the key in its own header, the stream reads as that API's dialect with the same
normalized output as the capture file read directly, with real per-read times, and the key is
nowhere: not in what the page gets, the recording, the data dir or the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.summary import summarize

from .dialects.common import DIALECT_CAPTURES
from .fake_dialects import FOREIGN_KEY
from .helpers import CAPTURES
from .live_server import LiveServer
from .test_live import collect, started, stored
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

KEY = "sk-apis-canary-4d2e9a7b1c3f5e6a8b0d"
SERVER_KEY = "server-apis-canary-not-key-shaped-7e1f"


def root(fake) -> str:
    return f"http://127.0.0.1:{fake.port}"


# (api, base URL under the fake's root, capture, the header the key must arrive in)
RUNS = [
    ("chat", "/v1", "replay:openai-gpt4o-tool-parallel.sse", "authorization"),
    ("responses", "/v1", "replay:responses-openai-gpt-4o-function-call.sse", "authorization"),
    (
        "completions",
        "/v1",
        "replay:completion-openai-gpt-3-5-turbo-instruct-usage.sse",
        "authorization",
    ),
    ("anthropic", "", "replay:anthropic-claude-3-5-sonnet-text-then-two-tools.sse", "x-api-key"),
    ("gemini", "", "replay:gemini-2-5-pro-thinking.sse", "x-goog-api-key"),
    ("gemini", "", "array:gemini-2-5-flash-json-array-thinking-tools.json", "x-goog-api-key"),
    ("ollama", "", "replay:ollama-chat-llama3-2-tool-call-docs.ndjson", "authorization"),
    ("ollama-generate", "", "replay:ollama-generate-llama3-text.ndjson", "authorization"),
]
DIALECTS = {
    "chat": "chat-completions",
    "responses": "openai-responses",
    "completions": "completions",
    "anthropic": "anthropic-messages",
    "gemini": "gemini",
    "ollama": "ollama",
    "ollama-generate": "ollama",
}
PATHS = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "completions": "/v1/completions",
    "anthropic": "/v1/messages",
    "ollama": "/api/chat",
    "ollama-generate": "/api/generate",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake):
    env = {"SERVER_APIS_KEY": SERVER_KEY, "STREAMSCOPE_API_KEYS": f"SERVER_APIS_KEY={root(fake)}"}
    live = LiveServer(tmp_path_factory.mktemp("live-apis"), env=env).start()
    yield live
    live.stop()


def run(server, api: str, base_url: str, model: str, **key) -> list[dict]:
    ws = connect(server.port)
    message = {
        "type": "start",
        "api": api,
        "base_url": base_url,
        "headers": {},
        "body": {
            "model": model,
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "hi"},
            ],
            "max_tokens": 200,
        },
        **key,
    }
    ws.send(json.dumps(message))
    messages = collect(ws)
    ws.close()
    return messages


def capture_name(model: str) -> str:
    return model.partition(":")[2]


def direct(model: str) -> dict:
    """The capture file read directly, summed up."""
    name = capture_name(model)
    folder = DIALECT_CAPTURES if (DIALECT_CAPTURES / name).exists() else CAPTURES
    (stream,) = read_capture((folder / name).read_bytes()).streams
    return plain(summarize(stream))


def sent_to(fake, api: str, model: str) -> dict:
    """The last request the fake got at the API's path for this model."""
    path = PATHS.get(api) or f"/v1beta/models/{model}:streamGenerateContent?alt=sse"
    return next(
        r
        for r in reversed(fake.requests)
        if r["path"] == path and (api == "gemini" or r["body"].get("model") == model)
    )


def assert_real_times(stream) -> None:
    times = [raw.t for raw in stream.raw]
    assert all(t is not None for t in times) and times == sorted(times)
    assert len(set(times)) > len(times) // 2, "payloads carry the times of their own reads"


@pytest.mark.parametrize(("api", "under", "model", "header"), RUNS, ids=[m for _, _, m, _ in RUNS])
@pytest.mark.parametrize("key_from", ["typed", "server"])
def test_a_live_run_speaks_the_api_and_reads_as_its_dialect(
    server, fake, api, under, model, header, key_from
):
    key = {"api_key": KEY} if key_from == "typed" else {"api_key_env": "SERVER_APIS_KEY"}
    secret = KEY if key_from == "typed" else SERVER_KEY
    messages = run(server, api, root(fake) + under, model, **key)
    assert messages[-1] == {"type": "end", "reason": "done", "error": None}
    capture_message = next(m for m in messages if m["type"] == "capture")
    summary = next(m for m in messages if m["type"] == "summary")
    want = direct(model)
    assert summary["dialect"] == DIALECTS[api] == want["dialect"]
    assert summary["normalized"] == want["normalized"] and summary["normalized"]["outputs"]
    assert summary["metrics"]["timed"] is True
    # what the upstream got: its own path, its own key header, the API's body
    sent = sent_to(fake, api, model)
    value = sent["headers"][header]
    assert value == (f"Bearer {secret}" if header == "authorization" else secret)
    assert secret not in sent["path"]
    if api == "anthropic":
        assert sent["headers"]["anthropic-version"] == "2023-06-01"
        assert sent["body"]["system"] == "Be brief." and sent["body"]["max_tokens"] == 200
    if api == "gemini":
        assert sent["body"]["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    # the recording replays as the same dialect, with real per-read times
    capture, raw = stored(server, started(messages)["capture"])
    (stream,) = capture.streams
    assert capture.format == "timed" and capture.header["api"] == api
    assert capture.header["request"] == sent["body"]
    assert plain(summarize(stream))["normalized"] == want["normalized"]
    assert stream.dialect_name == DIALECTS[api]
    assert_real_times(stream)
    assert secret.encode() not in raw and secret not in json.dumps(messages)
    # Labelled as its stored recording reads: the URL without credentials (a query such as
    # Gemini's alt=sse is kept, as in the recording's header).
    origin = capture_message["streams"][0]["origin"]
    assert origin.partition("?")[0].endswith(sent["path"].partition("?")[0])


@pytest.mark.parametrize("api", ["responses", "anthropic", "gemini", "ollama"])
def test_a_key_echoed_by_the_upstream_is_shown_and_recorded_nowhere(server, fake, api):
    under = "/v1" if api == "responses" else ""
    for model in ("echo-key", "echo-split"):
        messages = run(server, api, root(fake) + under, model, api_key=KEY)
        text = json.dumps(messages)
        assert KEY not in text and FOREIGN_KEY not in text
        _, raw = stored(server, started(messages)["capture"])
        assert KEY.encode() not in raw and FOREIGN_KEY.encode() not in raw
        assert messages[-1]["reason"] in ("done", "error")
    echoed = sent_to(fake, api, "echo-split")
    assert KEY in json.dumps(echoed["headers"])  # it did reach the upstream, in its header


@pytest.mark.parametrize("api", ["anthropic", "gemini", "ollama"])
def test_faults_end_each_apis_run_with_a_reason(server, fake, api):
    messages = run(server, api, root(fake), "close:120", api_key=KEY)
    assert messages[-1]["reason"] == "disconnected"
    assert sent_to(fake, api, "close:120")  # at the API's own path
    messages = run(server, api, root(fake), "500", api_key=KEY)
    assert messages[-1]["reason"] == "error" and "HTTP 500" in messages[-1]["error"]
    assert sent_to(fake, api, "500")


def test_a_gemini_model_that_could_change_the_path_is_refused_before_anything_is_sent(server, fake):
    before = len(fake.requests)
    messages = run(
        server, "gemini", root(fake), "../../v1/chat/completions", api_key_env="SERVER_APIS_KEY"
    )
    assert messages[-1]["type"] == "error" and "cannot go in the URL" in messages[-1]["message"]
    assert len(fake.requests) == before


@pytest.mark.parametrize(
    ("api", "path", "names"),
    [
        (
            "anthropic",
            "/v1/models",
            ["fake-large", "fake-small", "replay:openai-gpt4o-content-plain.sse"],
        ),
        ("gemini", "/v1beta/models?pageSize=1000", ["fake-large", "fake-small"]),
        ("ollama", "/api/tags", ["fake-small"]),
    ],
)
def test_models_are_listed_in_each_apis_own_way(server, fake, api, path, names):
    from .test_api import request

    body = json.dumps({"api": api, "base_url": root(fake), "api_key_env": "SERVER_APIS_KEY"})
    status, _, answer = request(
        server, "POST", "/api/models", body.encode(), {"Content-Type": "application/json"}
    )
    assert status == 200 and json.loads(answer)["models"] == names
    listed = fake.requests[-1]
    assert listed["path"] == path
    assert SERVER_KEY in json.dumps(listed["headers"]) and SERVER_KEY not in listed["path"]


def test_no_key_is_on_disk_or_in_the_log(server):
    # the runs above used both keys, typed and from the server's environment
    for secret in (KEY, SERVER_KEY):
        found = [
            p.name
            for p in server.data_dir.rglob("*")
            if p.is_file() and secret.encode() in p.read_bytes()
        ]
        assert found == [] and secret not in server.log()


# ---------------------------------------------------------------------- streamscope record
@pytest.mark.parametrize(("api", "under", "model", "header"), RUNS, ids=[m for _, _, m, _ in RUNS])
def test_record_speaks_the_api_and_its_recording_replays_as_the_capture(
    tmp_path, fake, api, under, model, header
):
    out = tmp_path / "run.ssjsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "record",
            "--api",
            api,
            "--base-url",
            root(fake) + under,
            "--model",
            model,
            "--api-key-env",
            "RECORD_KEY",
            "--prompt",
            "hi",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "RECORD_KEY": KEY},
    )
    assert result.returncode == 0, result.stderr
    assert KEY not in result.stdout + result.stderr
    data = out.read_bytes()
    assert KEY.encode() not in data
    header = json.loads(data.splitlines()[0])
    sent = sent_to(fake, api, model)
    assert header["api"] == api and header["request"] == sent["body"]
    assert header["source"]["url"].endswith(sent["path"])
    value = sent["headers"][header_name := header_of(api)]
    assert value == (f"Bearer {KEY}" if header_name == "authorization" else KEY)
    capture = read_capture(data)
    (stream,) = capture.streams
    want = direct(model)
    assert stream.dialect_name == DIALECTS[api]
    assert plain(summarize(stream))["normalized"] == want["normalized"]
    assert_real_times(stream)
    text = want["normalized"]["outputs"][0]["text"]
    assert text[:20] in result.stdout  # printed as it streamed


def header_of(api: str) -> str:
    return {"anthropic": "x-api-key", "gemini": "x-goog-api-key"}.get(api, "authorization")


def test_record_refuses_an_unknown_api(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "record",
            "--api",
            "bedrock",
            "--base-url",
            "http://127.0.0.1:9",
            "--model",
            "m",
            "-o",
            str(tmp_path / "x"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2 and "invalid choice: 'bedrock'" in result.stderr


# ---------------------------------------------------------------------- the page's preview
def ask_preview(server, config: dict) -> tuple[int, dict]:
    from .test_api import request

    status, _, answer = request(
        server,
        "POST",
        "/api/live/preview",
        json.dumps(config).encode(),
        {"Content-Type": "application/json"},
    )
    return status, json.loads(answer)


def test_the_preview_says_what_each_api_would_send_and_never_the_key(server, fake):
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
    }
    status, shown = ask_preview(
        server, {"api": "anthropic", "base_url": root(fake), "body": body, "api_key": KEY}
    )
    assert status == 200 and KEY not in json.dumps(shown)
    assert shown == {
        "api": "anthropic",
        "dialect": "anthropic-messages",
        "url": f"{root(fake)}/v1/messages",
        "headers": {"Accept": "text/event-stream", "anthropic-version": "2023-06-01"},
        "key_header": "x-api-key",
        "key_prefix": "",
        "body": {
            "model": "m",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": "hi"}],
            "system": "S",
            "stream": True,
        },
    }
    status, shown = ask_preview(server, {"api": "gemini", "base_url": root(fake), "body": body})
    assert shown["url"].endswith("/v1beta/models/m:streamGenerateContent?alt=sse")
    assert shown["key_header"] == "x-goog-api-key" and "model" not in shown["body"]
    status, refused = ask_preview(
        server,
        {
            "api": "chat",
            "base_url": "http://127.0.0.1:9/v1",
            "body": body,
            "api_key_env": "SERVER_APIS_KEY",
        },
    )
    assert status == 400 and refused["error"]["code"] == "bad_run"
    assert "SERVER_APIS_KEY may only be sent to" in refused["error"]["message"]
    status, refused = ask_preview(
        server, {"api": "gemini", "base_url": root(fake), "body": {**body, "model": "a/b"}}
    )
    assert status == 400 and "cannot go in the URL" in refused["error"]["message"]
