"""Live runs through a real server against the fake upstream: recording, followers, Stop,
every fault, the canary key, and the network policy."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import corpus
from .live_server import LiveServer
from .test_api import request
from .wsclient import connect as ws_connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

CANARY = "sk-canary-7f3c9e1d2b4a6f8e0c1d3e5f7a9b"


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake):
    env = {
        "STREAMSCOPE_FIRST_BYTE_TIMEOUT": "1",
        "STREAMSCOPE_IDLE_TIMEOUT": "1",
        "STREAMSCOPE_TOTAL_TIMEOUT": "6",
        "CANARY_KEY": CANARY,
        "STREAMSCOPE_API_KEYS": f"CANARY_KEY={fake.url}",
    }
    live = LiveServer(tmp_path_factory.mktemp("live-data"), env=env).start()
    yield live
    live.stop()


def connect(server):
    return ws_connect(server.port)


def start(
    server, fake, model: str, *, base_url: str | None = None, key: str | None = CANARY, **extra
) -> object:
    ws = connect(server)
    message = {
        "type": "start",
        "base_url": base_url or fake.url,
        "headers": {},
        "body": {
            "model": model,
            "messages": [{"role": "user", "content": "hi"}],
            "stream_options": {"include_usage": True},
        },
        **extra,
    }
    if key:
        message["api_key"] = key
    ws.send(json.dumps(message))
    return ws


def collect(ws, until: str = "end", timeout: float = 30) -> list[dict]:
    messages, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = ws.receive(timeout=1)
        if text is None:
            continue
        message = json.loads(text)
        messages.append(message)
        if message["type"] in (until, "error"):
            return messages
    raise AssertionError(f"no {until} within {timeout} s: {[m['type'] for m in messages]}")


def events(messages: list[dict]) -> list[dict]:
    return [e for m in messages if m["type"] == "events" for e in m["events"]]


def texts(messages: list[dict]) -> str:
    return "".join(e["text"] for e in events(messages) if e["kind"] == "text")


def started(messages: list[dict]) -> dict:
    return next(m for m in messages if m["type"] == "status" and m["state"] == "started")


def stored(server, capture_id: str):
    status, _, raw = request(server, "GET", f"/api/captures/{capture_id}/raw")
    assert status == 200
    return read_capture(raw), raw


def test_a_live_run_is_streamed_recorded_and_replayable(server, fake):
    ws = start(server, fake, "replay:tool-calls-parallel.timed.jsonl")
    messages = collect(ws)
    ws.close()
    info = started(messages)
    assert info["url"] == f"/c/{info['capture']}" and info["delete_token"]
    capture_message = next(m for m in messages if m["type"] == "capture")
    assert capture_message["live"] is True
    assert messages[-1]["type"] == "end" and messages[-1]["reason"] == "done"
    summary = next(m for m in messages if m["type"] == "summary")
    assert summary["metrics"]["timed"] is True and summary["metrics"]["ttft_ms"] > 0
    reference = plain(
        assemble(read_capture(fake_demo("tool-calls-parallel.timed.jsonl")).streams[0].events)
    )
    assert (
        summary["completion"]["choices"][0]["message"]["tool_calls"]
        == reference["choices"][0]["message"]["tool_calls"]
    )
    # The recording: a timed capture with real times, that replays like any other.
    capture, raw = stored(server, info["capture"])
    assert (
        capture.format == "timed"
        and capture.streams[0].timed
        and capture.streams[0].end_reason == "done"
    )
    assert plain(assemble(capture.streams[0].events))["choices"] == summary["completion"]["choices"]
    assert b'"type":"response"' in raw
    status, _, _ = request(server, "GET", f"/c/{info['capture']}")
    assert status == 200
    # The key was used upstream, and is nowhere else.
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {CANARY}"
    assert CANARY not in json.dumps(messages)
    assert CANARY.encode() not in raw


def fake_demo(name: str) -> bytes:
    from app.demos import DEMO_DIR

    return (DEMO_DIR / name).read_bytes()


def test_a_share_link_opened_mid_run_gets_everything_so_far_then_follows(server, fake):
    ws = start(server, fake, "slow:25")
    first = collect(ws, until="capture", timeout=5)
    capture_id = started(first)["capture"]
    time.sleep(0.8)
    viewer = connect(server)
    viewer.send(json.dumps({"type": "open", "source": {"capture": capture_id}}))
    seen = collect(viewer)
    rest = collect(ws)
    ws.close()
    viewer.close()
    starter_events = events(first + rest)
    assert [e["seq"] for e in events(seen)] == list(range(len(events(seen))))
    assert events(seen) == starter_events
    assert next(m for m in seen if m["type"] == "capture")["live"] is True
    assert "started" not in [
        m.get("state") for m in seen
    ]  # the delete token goes to the starter only
    assert texts(seen).startswith("word0 word1")


def test_a_page_that_resumed_stops_the_run_with_its_delete_token(server, fake):
    """A page whose connection dropped resumes as a follower of its run (docs/protocol.md,
    ``stop``): its Stop, with the delete token it was given, stops the upstream; a follower's
    Stop without it is ignored. Before, no follower could stop a run."""
    ws = start(server, fake, "slow:60")
    first = collect(ws, until="capture", timeout=5)
    status = started(first)
    viewer = connect(server)
    viewer.send(json.dumps({"type": "open", "source": {"capture": status["capture"]}}))
    collect(viewer, until="events", timeout=5)
    viewer.send(json.dumps({"type": "stop"}))
    time.sleep(0.5)
    viewer.send(json.dumps({"type": "stop", "delete_token": status["delete_token"]}))
    stopped_at = time.monotonic()
    seen = collect(viewer)
    rest = collect(ws)
    ws.close()
    viewer.close()
    how, when = fake.wait_end("slow:60")
    assert how == "closed" and 0 <= when - stopped_at < 1.0  # not at the Stop without it
    assert seen[-1]["reason"] == "cancelled" and rest[-1]["reason"] == "cancelled"
    assert len(texts(seen).split()) < 60


def test_stop_closes_the_upstream_within_a_second_and_keeps_the_partial_recording(server, fake):
    ws = start(server, fake, "slow:60")
    first = collect(ws, until="capture", timeout=5)
    time.sleep(1.0)
    stopped_at = time.monotonic()
    ws.send(json.dumps({"type": "stop"}))
    rest = collect(ws)
    ws.close()
    how, when = fake.wait_end("slow:60")
    assert how == "closed"
    assert when - stopped_at < 1.0
    assert rest[-1]["reason"] == "cancelled"
    capture, _ = stored(server, started(first)["capture"])
    stream = capture.streams[0]
    assert stream.end_reason == "cancelled"
    assert 3 <= len([e for e in stream.events if e.kind == "text"]) < 60


def test_closing_the_starting_tab_stops_the_run(server, fake):
    ws = start(server, fake, "slow:61")
    collect(ws, until="capture", timeout=5)
    time.sleep(0.5)
    closed_at = time.monotonic()
    ws.close()
    how, when = fake.wait_end("slow:61")
    assert how == "closed" and when - closed_at < 2.0


FAULTS = [
    # model or base URL, end reason, words in the error
    ("stall", "error", "first-byte timeout"),
    ("mute", "error", "no response headers within 1 s of the request"),
    ("drip", "error", "idle timeout"),
    ("slow:90", "error", "total timeout"),
    ("429always", "error", "HTTP 429 from upstream: Rate limit reached"),
    ("500", "error", "HTTP 500 from upstream: The server had an error"),
    ("html", "error", "an HTML page"),
    ("close:300", "disconnected", "closed the connection mid-stream"),
    ("replay:groq-gptoss-event-error-midstream.sse", "error", "the stream reported an error"),
    ("redirect", "error", "redirects are not followed"),
    ("nope", "error", "HTTP 404 from upstream: model nope does not exist"),
    ("echo-key", "error", "Incorrect API key provided: [redacted]"),
]


@pytest.mark.parametrize(("model", "reason", "words"), FAULTS)
def test_each_fault_is_said_and_the_partial_recording_kept(server, fake, model, reason, words):
    before = len(fake.requests)
    ws = start(server, fake, model)
    messages = collect(ws)
    ws.close()
    end = messages[-1]
    assert end["type"] == "end" and end["reason"] == reason, end
    assert words in (end.get("error") or ""), end
    capture, raw = stored(server, started(messages)["capture"])
    assert capture.streams[0].end_reason == reason
    assert CANARY.encode() not in raw and CANARY not in json.dumps(messages)
    if model == "redirect":
        assert len(fake.requests) - before == 1  # nothing followed the redirect
    assert request(server, "GET", "/")[0] == 200


def test_retry_after_429_is_announced_and_then_streams(server, fake):
    ws = start(server, fake, "429")
    messages = collect(ws)
    ws.close()
    retrying = [m for m in messages if m["type"] == "status" and m["state"] == "retrying"]
    assert retrying and "retrying in 1.0 s" in retrying[0]["message"]
    assert messages[-1]["reason"] == "done" and texts(messages) == "after retry"


def test_a_non_streaming_json_answer_is_shown_whole(server, fake):
    ws = start(server, fake, "json")
    messages = collect(ws)
    ws.close()
    assert messages[-1]["reason"] == "done"
    assert texts(messages) == "A whole answer, not streamed."
    assert [e["category"] for e in events(messages) if e["kind"] == "payload"] == ["completion"]


@pytest.mark.parametrize(
    ("base_url", "words"),
    [
        ("http://127.0.0.1:1/v1", "connection refused"),
        ("http://no-such-host.invalid/v1", "cannot resolve"),
        ("https://127.0.0.1:{port}/v1", "TLS error"),
    ],
)
def test_connection_failures(server, fake, base_url, words):
    ws = start(server, fake, "slow:1", base_url=base_url.format(port=fake.port))
    messages = collect(ws)
    ws.close()
    assert messages[-1]["reason"] == "error" and words in messages[-1]["error"]


def test_key_from_a_server_variable_never_enters_the_browser(server, fake):
    ws = start(server, fake, "replay:openai-gpt4o-length.sse", key=None, api_key_env="CANARY_KEY")
    messages = collect(ws)
    ws.close()
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {CANARY}"
    assert CANARY not in json.dumps(messages)
    refused = start(server, fake, "x", key=None, api_key_env="PATH")
    answer = collect(refused)
    refused.close()
    assert (
        answer[-1]["type"] == "error"
        and "not a key variable of this server" in answer[-1]["message"]
    )


def test_bad_run_requests_are_refused_clearly(server, fake):
    ws = connect(server)
    ws.receive(timeout=5)
    ws.send(
        json.dumps({"type": "start", "base_url": "ftp://x", "body": {"model": "m", "messages": []}})
    )
    answer = collect(ws)
    ws.close()
    assert answer[-1] == {
        "type": "error",
        "code": "bad_run",
        "message": "base_url must be an http(s) URL, e.g. http://localhost:8000/v1",
    }


def test_models_are_listed_through_the_server(server, fake):
    status, _, body = request(
        server,
        "POST",
        "/api/models",
        json.dumps({"base_url": fake.url}).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 200 and "fake-small" in json.loads(body)["models"]


def test_the_canary_key_is_nowhere_on_disk_or_in_the_logs(server):
    # Runs above used the canary as a typed key and from a server variable.
    found = [
        p.name
        for p in server.data_dir.rglob("*")
        if p.is_file() and CANARY.encode() in p.read_bytes()
    ]
    assert found == []
    assert CANARY not in server.log()


def test_a_public_server_refuses_private_upstreams(tmp_path, fake):
    public = LiveServer(tmp_path / "public", extra_args=["--public"]).start()
    try:
        ws = start(public, fake, "slow:2")
        messages = collect(ws)
        ws.close()
        assert messages[-1]["reason"] == "error"
        assert "127.0.0.1, a loopback address" in messages[-1]["error"]
        assert not [r for r in fake.requests if r["body"] and r["body"].get("model") == "slow:2"]
        status, _, body = request(
            public,
            "POST",
            "/api/models",
            json.dumps({"base_url": fake.url}).encode(),
            {"Content-Type": "application/json"},
        )
        assert status == 400 and "loopback" in json.loads(body)["error"]["message"]
    finally:
        public.stop()
    allowed = LiveServer(
        tmp_path / "allowed",
        extra_args=["--public"],
        env={"STREAMSCOPE_UPSTREAM_ALLOW": "127.0.0.1/32"},
    ).start()
    try:
        ws = start(allowed, fake, "slow:2")
        assert collect(ws)[-1]["reason"] == "done"
        ws.close()
    finally:
        allowed.stop()


def test_record_command_writes_a_timed_capture_with_real_timing(tmp_path, fake):
    out = tmp_path / "run.timed.jsonl"
    env = {"RECORD_KEY": CANARY}
    import os

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "record",
            "--base-url",
            fake.url,
            "--model",
            "replay:plain-text.timed.jsonl",
            "--api-key-env",
            "RECORD_KEY",
            "--prompt",
            "Weather?",
            "--max-tokens",
            "300",
            "--logprobs",
            "2",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert result.returncode == 0, result.stderr
    assert "San Francisco" in result.stdout  # the text, as it streamed
    assert "TTFT" in result.stderr and "recorded to" in result.stderr
    assert CANARY not in out.read_text()
    sent = fake.requests[-1]["body"]
    assert (
        sent["max_tokens"] == 300
        and sent["logprobs"] is True
        and sent["top_logprobs"] == 2
        and sent["stream"] is True
    )
    inspected = json.loads(
        subprocess.run(
            [sys.executable, "-m", "app.cli", "inspect", str(out), "--json"],
            capture_output=True,
            check=True,
        ).stdout
    )
    metrics = inspected["streams"][0]["metrics"]
    assert inspected["format"] == "timed" and metrics["timed"] is True
    assert metrics["ttft_ms"] > 0 and metrics["itl_p50_ms"] > 0
    reference = read_capture(corpus("openai-gpt4o-long-content.sse")).streams[0]
    assert (
        inspected["streams"][0]["completion"]["choices"][0]["message"]["content"]
        == plain(assemble(reference.events))["choices"][0]["message"]["content"]
    )
