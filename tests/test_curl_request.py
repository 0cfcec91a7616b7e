"""The request in ``curl -v`` and ``curl --trace-ascii`` output (docs/formats.md, "curl";
docs/timeline.md, "The request"): the real ``curl`` binary against the fake upstream on a
loopback port, its output read back: the response streams as from ``curl -i``, and each
stream's request view has the method, the URL and, where a trace holds the body sent, its
parameters and messages; no key it sent reaches the view, the JSON, the stored upload or its
downloads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.captures import curlv, read_capture
from app.captures.curlv import NO_BODY
from app.captures.export import to_timed
from app.domain.requests import request_view
from app.domain.requests.model import RequestView
from tests.helpers import corpus
from tests.scrub_views import importer, upload_views

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="needs the curl binary")

REPLAY = "openai-gpt4o-content-plain.sse"
KEY = "sk-proj-" + "Q7w8E9r0T1y2U3i4O5p6" * 3  # longer than a trace line: cut over two
PLAIN = "cnryXAPI7f3a"  # not key-shaped: only the header rule removes it
BODY = {
    "model": f"replay:{REPLAY}",
    "stream": True,
    "temperature": 0.2,
    "messages": [{"role": "user", "content": "Hi"}],
}


def curl(fake, tmp_path: Path, *options: str, body: dict = BODY) -> bytes:
    """What a user's ``curl ... 2>&1 | tee capture.txt`` keeps."""
    (tmp_path / "body.json").write_text(json.dumps(body))
    args = [
        "curl",
        "-sS",
        "-N",
        *options,
        "-d",
        f"@{tmp_path / 'body.json'}",
        "-H",
        "Content-Type: application/json",
        "-H",
        f"Authorization: Bearer {KEY}",
        "-H",
        f"x-api-key: {PLAIN}",
        f"{fake.url}/chat/completions",
    ]
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    assert done.returncode == 0, done.stdout
    return done.stdout


def texts(capture) -> str:
    return "".join(e.text or "" for e in capture.streams[0].events if e.kind == "text")


def the_view(capture) -> RequestView:
    (stream,) = capture.streams
    view = request_view(stream)
    assert view is not None
    return view


def no_secret(blob: bytes | str) -> bool:
    text = blob if isinstance(blob, str) else blob.decode("utf-8", "replace")
    return all(part not in text for part in (KEY, KEY[20:], KEY[:24], KEY[-12:], PLAIN))


def test_curl_v_with_2_to_1_gives_the_stream_and_the_request_line(fake, tmp_path):
    data = curl(fake, tmp_path, "-v")
    assert data.startswith(b"* ") and b"> POST /v1/chat/completions HTTP/1.1" in data
    capture = read_capture(data)
    assert capture.format == "curl"
    assert capture.format_reason == "curl -v lines (> request, < response)"
    assert texts(capture) == texts(read_capture(corpus(REPLAY)))
    assert capture.streams[0].content_type == "text/event-stream"
    view = the_view(capture)
    assert (view.method, view.url, view.source) == (
        "POST",
        f"{fake.url}/chat/completions",
        "curl",
    )
    assert view.note == NO_BODY and view.params == () and view.messages == ()
    assert no_secret(json.dumps(view.to_json()))
    assert no_secret(json.dumps(capture.streams[0].request))


def test_curl_v_stderr_alone_has_no_body_and_says_so(fake, tmp_path):
    args_data = curl(fake, tmp_path, "-v", "-o", "/dev/null")  # as 2> capture.txt keeps
    assert b"> POST " in args_data and b"data: " not in args_data
    capture = read_capture(args_data)
    assert capture.format == "curl" and capture.streams == []
    assert [d.code for d in capture.diagnostics][:1] == ["curl_no_body"]


def test_trace_ascii_gives_the_body_sent_its_params_and_messages(fake, tmp_path):
    data = curl(fake, tmp_path, "--trace-ascii", "-")
    assert data.startswith(b"== Info: ") and b"=> Send data, " in data
    capture = read_capture(data)
    assert capture.format == "curl" and capture.format_reason == "a curl trace"
    assert texts(capture) == texts(read_capture(corpus(REPLAY)))
    view = the_view(capture)
    assert (view.method, view.url, view.source, view.note) == (
        "POST",
        f"{fake.url}/chat/completions",
        "curl",
        None,
    )
    assert {p.name: p.value for p in view.params} == {
        "model": f"replay:{REPLAY}",
        "stream": True,
        "temperature": 0.2,
    }
    assert [(m.role, [p.text for p in m.parts]) for m in view.messages] == [("user", ["Hi"])]
    assert capture.streams[0].request["content_type"] == "application/json"
    assert no_secret(json.dumps(view.to_json()))


def test_a_body_cut_over_trace_lines_is_read_whole_and_a_key_in_it_swept(fake, tmp_path):
    long = {**BODY, "messages": [{"role": "user", "content": "x" * 150 + " my key " + KEY}]}
    data = curl(fake, tmp_path, "--trace-ascii", "-", body=long)
    assert KEY.encode() not in data  # cut over two of the trace's 64-byte lines
    view = the_view(read_capture(data))
    (message,) = view.messages
    assert message.parts[0].text == "x" * 150 + " my key [redacted]"
    assert no_secret(json.dumps(view.to_json()))


def test_the_scheme_is_told_by_the_connection_else_unknown(fake, tmp_path):
    data = curl(fake, tmp_path, "-v")
    assert the_view(read_capture(data)).url.startswith("http://127.0.0.1:")
    # The * notes gone (a paste of the > and < lines): the port in Host says nothing.
    pasted = b"".join(line for line in data.splitlines(True) if not line.startswith(b"* "))
    assert the_view(read_capture(pasted)).url == f"//{fake.url[7:]}/chat/completions"
    tls = data.replace(b"* Connected to", b"* SSL connection using TLSv1.3\n* Connected to", 1)
    assert the_view(read_capture(tls)).url.startswith("https://127.0.0.1:")


@pytest.mark.parametrize("how", [("-v",), ("--trace-ascii", "-")])
def test_no_key_survives_an_upload_of_curl_output(fake, tmp_path, how):
    data = curl(fake, tmp_path, *how)
    assert PLAIN.encode() in data and KEY[:24].encode() in data
    views = upload_views(importer(tmp_path), data)
    assert {name: no_secret(blob) for name, blob in views.items()} == dict.fromkeys(views, True)
    stored = read_capture(views["stored"])
    view = the_view(stored)
    assert view.method == "POST" and view.url == f"{fake.url}/chat/completions"
    assert (view.note is None) == (how[0] == "--trace-ascii")


def test_inspect_json_gives_the_curl_request_without_a_secret(fake, tmp_path):
    path = tmp_path / "capture.txt"
    path.write_bytes(curl(fake, tmp_path, "--trace-ascii", "-"))
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", str(path), "--json"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert no_secret(done.stdout) and no_secret(done.stderr)
    request = json.loads(done.stdout)["streams"][0]["request"]
    assert (request["method"], request["url"], request["source"]) == (
        "POST",
        f"{fake.url}/chat/completions",
        "curl",
    )
    assert {p["name"]: p["value"] for p in request["params"]}["temperature"] == 0.2
    assert request["messages"][0]["parts"][0]["text"] == "Hi"


def test_a_trace_exported_as_timed_reads_back_with_the_same_request(fake, tmp_path):
    data = curl(fake, tmp_path, "--trace-ascii", "-")
    capture = read_capture(data)
    exported = to_timed(capture, data)
    assert no_secret(exported)
    back = read_capture(exported)
    assert back.format == "timed" and texts(back) == texts(capture)
    before, after = the_view(capture).to_json(), the_view(back).to_json()
    assert after.pop("source") == "recording" and before.pop("source") == "curl"
    assert after == before and after["messages"]


def trace_of(fake, tmp_path: Path, raw: bytes) -> bytes:
    """``curl --trace-ascii - --data-binary @body``: the body sent byte for byte."""
    (tmp_path / "raw.json").write_bytes(raw)
    args = ["curl", "-sS", "-N", "--trace-ascii", "-", "--data-binary", f"@{tmp_path / 'raw.json'}"]
    done = subprocess.run(
        [*args, "-H", "Content-Type: application/json", f"{fake.url}/chat/completions"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout
    return done.stdout


def test_untrace_gives_the_bytes_sent_crlf_at_the_width_and_cut_lines(fake, tmp_path):
    # A CRLF right after byte 64 (curl breaks there without a cut), one inside a line, and a
    # line longer than two widths: the trace's lines joined back give exactly the body sent.
    head = b'{"model": "replay:' + REPLAY.encode() + b'", "x": "'
    raw = head + b"a" * (64 - len(head) - 2) + b'",\r\n "stream": true,\r\n "messages": '
    raw += b'[{"role": "user", "content": "' + b"b" * 150 + b'"}]}'
    assert raw.index(b"\r\n") == 64  # just after a whole line's width
    data = trace_of(fake, tmp_path, raw)
    exchange = curlv.parse(data, "trace")
    assert exchange.sent == raw
    assert the_view(read_capture(data)).messages[0].parts[0].text == "b" * 150


def test_a_body_with_bare_line_feeds_is_named_not_guessed(fake, tmp_path):
    """curl prints a lone LF as ".": the body is not JSON as the trace holds it, and the view
    says so rather than guess the bytes."""
    raw = json.dumps(BODY, indent=2).encode()
    assert b"\n" in raw and b"\r" not in raw
    data = trace_of(fake, tmp_path, raw)
    view = the_view(read_capture(data))
    assert view.note == f"the body sent ({len(raw):,} bytes) is not JSON"
    assert view.method == "POST" and view.params == ()
