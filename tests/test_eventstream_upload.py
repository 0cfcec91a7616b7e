"""A Bedrock capture (binary AWS event-stream frames) uploaded to a real server: detected,
scrubbed without breaking its frames, and every download reads back as the same stream."""

from __future__ import annotations

import pytest

from app.captures import read_capture
from app.domain.summary import summarize

from .dialects.common import DIALECT_CAPTURES
from .eventstream_frames import frame
from .live_server import LiveServer
from .test_api import request, upload

pytestmark = pytest.mark.integration  # starts a real server on loopback

TOOL_USE = (DIALECT_CAPTURES / "bedrock-converse-claude-3-sonnet-tool-use.eventstream").read_bytes()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("eventstream-data")).start()
    yield live
    live.stop()


def test_an_eventstream_upload_is_read_as_bedrock(server):
    status, answer = upload(server, TOOL_USE)
    assert status == 201
    assert answer["format"] == "eventstream" and answer["diagnostics"] == []
    assert answer["streams"][0]["finish_reasons"] == ["tool_use"]
    status, _, body = request(server, "GET", f"/api/captures/{answer['id']}/raw")
    assert status == 200 and body == TOOL_USE


@pytest.mark.parametrize("kind", ["original", "timed", "jsonl", "sse"])
def test_every_download_reads_back_as_the_same_result(server, kind):
    _, answer = upload(server, TOOL_USE)
    status, _, body = request(server, "GET", f"/api/captures/{answer['id']}/download/{kind}")
    assert status == 200
    (stream,) = read_capture(body).streams
    want = summarize(read_capture(TOOL_USE).streams[0])["completion"]
    assert stream.dialect_name == "bedrock-converse"
    assert summarize(stream)["completion"] == want


def test_a_key_in_a_frame_is_scrubbed_and_the_frames_still_read(server):
    secret = "sk-ant-" + "Zx9" * 10
    data = frame("messageStart", {"role": "assistant"}) + frame(
        "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": f"use {secret} here"}}
    )
    data += frame("contentBlockStop", {"contentBlockIndex": 0})
    data += frame("messageStop", {"stopReason": "end_turn"})
    status, answer = upload(server, data)
    assert status == 201 and answer["redacted"] == [{"kind": "anthropic key", "count": 1}]
    _, _, stored = request(server, "GET", f"/api/captures/{answer['id']}/raw")
    assert secret.encode() not in stored
    capture = read_capture(stored)
    assert not capture.all_diagnostics
    texts = [e.text for e in capture.streams[0].events if e.kind == "text"]
    assert texts == ["use [redacted] here"]
