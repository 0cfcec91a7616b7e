"""OpenTelemetry export against a real receiver (docs/otel.md, "Tested against"): Arize Phoenix
(tests/phoenix_server.py) on loopback, Streamscope's real proxy in front of the fake upstream
with ``STREAMSCOPE_OTLP_ENDPOINT`` pointing at it. Each span is read back through Phoenix's own
REST API and held to what Streamscope measured for the same call (the calls list's TTFT and
duration); ``streamscope export --otlp`` is checked the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from app.captures import read_capture
from app.domain.metrics import compute

from .phoenix_server import Phoenix, command
from .proxy_helpers import finished_call, get_json, proxy_server, recording, writes
from .test_live import collect, start, started, stored

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,  # Phoenix answers 14 to 20 s after it was started
    pytest.mark.skipif(
        command() is None, reason="Phoenix is not installed (./scripts/test installs it)"
    ),
]
ROOT = Path(__file__).resolve().parent.parent
MODEL = "replay:openai-gpt4o-content-plain.sse"
HEADER_SECRET = "otlp-header-canary-3f9a1c77e2"
CALL_KEY = "call-key-canary-not-key-shaped-51b7"  # the call's own credential: its redactor's
SHAPED = "sk-proj-shapedcanary0123456789abcdefXYZ"  # key-shaped: the sweep's


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    receiver = Phoenix(tmp_path_factory.mktemp("phoenix")).start()
    yield receiver
    receiver.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake, phoenix):
    env = {
        "STREAMSCOPE_OTLP_ENDPOINT": phoenix.url,
        "STREAMSCOPE_OTLP_HEADERS": f"x-otlp-token={HEADER_SECRET}",
    }
    live = proxy_server(tmp_path_factory.mktemp("data"), fake, env=env)
    live.start()
    yield live
    live.stop()


def phoenix_time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def test_a_proxied_call_is_a_genai_span_in_phoenix(server, fake, phoenix):
    body = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with httpx.stream(
        "POST", f"{server.url}/proxy/local/v1/chat/completions", json=body, timeout=30
    ) as answer:
        assert answer.status_code == 200
        got = b"".join(answer.iter_raw())
    assert got == b"".join(writes(fake.requests[-1]))  # the call's answer, intact
    call = finished_call(server)
    assert call["ttft_ms"] is not None and call["recording"]
    span = phoenix.span_where("streamscope.capture.id", call["recording"])
    a = span["attributes"]
    assert span["name"] == f"chat {MODEL}"
    assert a["gen_ai.operation.name"] == "chat"
    assert a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == MODEL
    assert a["gen_ai.response.model"] == "gpt-4o-2024-08-06"
    assert a["gen_ai.response.id"].startswith("chatcmpl-")
    assert a["gen_ai.response.finish_reasons"] == ["stop"]
    assert a["gen_ai.request.stream"] is True
    assert (a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"]) == (14, 30)
    assert a["server.address"] == "127.0.0.1" and a["server.port"] == fake.port
    assert a["streamscope.share_url"] == f"{server.url}/c/{call['recording']}"
    # TTFT on the span is the TTFT Streamscope lists for the call (ms there, s here).
    assert a["gen_ai.response.time_to_first_chunk"] == pytest.approx(
        call["ttft_ms"] / 1000, abs=1e-6
    )
    assert span["status_code"] != "ERROR"
    assert "gen_ai.input.messages" not in a and "gen_ai.output.messages" not in a  # off
    # The span lasts from the request to the stream's end: the call's duration, within the
    # few ms between the recording's start and the call's own clock.
    duration_ms = (phoenix_time(span["end_time"]) - phoenix_time(span["start_time"])) * 1000
    assert duration_ms == pytest.approx(call["duration_ms"], abs=25)
    health = get_json(server, "/healthz")["otlp"]
    assert health["exported"] >= 1 and health["dropped"] == 0
    assert HEADER_SECRET not in server.log()


def test_export_otlp_sends_a_stored_capture(server, fake, phoenix, tmp_path):
    body = {"model": MODEL, "stream": True}
    with httpx.stream(
        "POST", f"{server.url}/proxy/local/v1/chat/completions", json=body, timeout=30
    ) as answer:
        b"".join(answer.iter_raw())
    call = finished_call(server)
    raw, _ = recording(server, call["recording"])
    path = tmp_path / f"call-{call['recording']}.timed.jsonl"
    path.write_bytes(raw)
    sent = subprocess.run(
        [sys.executable, "-m", "app.cli", "export", str(path), "--otlp", phoenix.url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sent.returncode == 0, sent.stderr
    assert "sent 1 span(s)" in sent.stdout
    span = phoenix.span_where("streamscope.capture.file", path.name)
    assert span["name"] == f"chat {MODEL}"
    assert span["attributes"]["gen_ai.response.time_to_first_chunk"] == pytest.approx(
        call["ttft_ms"] / 1000, abs=1e-6
    )
    # And by its id from the running server: the span links to its share page.
    sent = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "export",
            "--server",
            server.url,
            "--otlp",
            phoenix.url,
            "--",  # an id may start with "-"
            call["recording"],
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sent.returncode == 0, sent.stderr
    shared = f"{server.url}/c/{call['recording']}"
    # the server's own span, and the one export --otlp sent, of the same call
    spans = phoenix.spans_where("streamscope.share_url", shared, 2)
    assert len(spans) == 2 and len({s["context"]["span_id"] for s in spans}) == 2
    assert {s["attributes"]["streamscope.capture.id"] for s in spans} == {call["recording"]}
    inspected = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    ttft = json.loads(inspected.stdout)["streams"][0]["metrics"]["ttft_ms"]
    assert span["attributes"]["gen_ai.response.time_to_first_chunk"] == pytest.approx(
        ttft / 1000, abs=1e-6
    )


def test_a_live_run_is_a_genai_span_in_phoenix(server, fake, phoenix):
    ws = start(server, fake, MODEL)
    try:
        messages = collect(ws)
    finally:
        ws.close()
    capture_id = started(messages)["capture"]
    span = phoenix.span_where("streamscope.capture.id", capture_id)
    assert span["name"] == f"chat {MODEL}"
    assert span["attributes"]["streamscope.share_url"] == f"{server.url}/c/{capture_id}"
    assert span["attributes"]["gen_ai.response.finish_reasons"] == ["stop"]
    _, raw = stored(server, capture_id)
    (stream,) = read_capture(raw).streams
    ttft = compute(stream).ttft_ms
    assert ttft is not None
    assert span["attributes"]["gen_ai.response.time_to_first_chunk"] == pytest.approx(
        ttft / 1000, abs=1e-6
    )


def test_content_goes_out_only_when_asked_and_scrubbed(tmp_path, fake, phoenix):
    """``STREAMSCOPE_OTLP_CONTENT=1``: the prompt and the completion reach Phoenix, without the
    call's key or a key-shaped string in either (the server above sends none of it)."""
    env = {"STREAMSCOPE_OTLP_ENDPOINT": phoenix.url, "STREAMSCOPE_OTLP_CONTENT": "1"}
    body = {
        "model": MODEL,
        "stream": True,
        "messages": [{"role": "user", "content": f"my other key is {SHAPED} and {CALL_KEY}"}],
    }
    headers = {"Authorization": f"Bearer {CALL_KEY}"}
    with proxy_server(tmp_path / "data", fake, env=env) as content_server:
        with httpx.stream(
            "POST",
            f"{content_server.url}/proxy/local/v1/chat/completions",
            json=body,
            headers=headers,
            timeout=30,
        ) as answer:
            assert answer.status_code == 200
            b"".join(answer.iter_raw())
        call = finished_call(content_server)
        span = phoenix.span_where("streamscope.capture.id", call["recording"])
    given = json.loads(span["attributes"]["gen_ai.input.messages"])
    answered = json.loads(span["attributes"]["gen_ai.output.messages"])
    assert given[0]["role"] == "user" and "my other key is" in given[0]["parts"][0]["content"]
    assert answered[0]["role"] == "assistant" and answered[0]["parts"][0]["content"]
    everything = json.dumps(span)
    assert SHAPED not in everything and CALL_KEY not in everything
