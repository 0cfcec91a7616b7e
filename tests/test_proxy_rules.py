"""The recording proxy's rules, without a network (docs/proxy.md): which upstreams a setting
names, where a call may go (never another host, never out of the base path), which headers go
on and which are recorded, what the token opens, how a client's hang-up is seen, and how a
recording stops without stopping its call."""

from __future__ import annotations

import gzip
import socket

import orjson
import pytest

from app.captures import read_capture
from app.captures.scrubbing import scrub
from app.live.hub import Registry
from app.live.redact import Redactor
from app.proxy import headers
from app.proxy.calls import Call, Calls
from app.proxy.recording import start_recording
from app.proxy.upstreams import (
    BadTarget,
    api_of,
    model_of,
    parse_upstreams,
    raw_rest,
    without_token,
)
from app.proxy.watch import hung_up
from app.storage import open_store

KEY = "sk-proj-rulescanary0123456789abcdefXYZ"


def test_upstreams_are_read_from_the_setting():
    found = parse_upstreams(
        " openai=https://api.openai.com , local=http://127.0.0.1:8000/, gw=https://gw.example/ai/v1/"
    )
    assert list(found) == ["openai", "local", "gw"]
    assert (found["openai"].host, found["openai"].port, found["openai"].path) == (
        "api.openai.com",
        443,
        "",
    )
    assert found["local"].url == "http://127.0.0.1:8000" and found["local"].port == 8000
    assert found["gw"].path == "/ai/v1"
    assert parse_upstreams("") == {}
    assert parse_upstreams("v6=http://[::1]:9000")["v6"].host == "[::1]"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("openai", "write NAME=URL"),
        ("=http://x", "write NAME=URL"),
        ("a b=http://x", "write NAME=URL"),
        ("a=http://x,a=http://y", "given twice"),
        ("a=ftp://x", "not an http(s) URL"),
        ("a=http://user:pw@x", "user-info"),
        ("a=http://x/v1?key=1", "query"),
        ("a=http://x/v1#top", "fragment"),
        ("a=http://x/v1/../admin", ". or .. segments"),
        ("a=http://x/%2e%2e/admin", "encoded dot or slash"),
    ],
)
def test_a_malformed_upstream_is_refused_with_what_is_wrong(value, words):
    with pytest.raises(ValueError, match="STREAMSCOPE_PROXY_UPSTREAMS") as refused:
        parse_upstreams(value)
    assert words in str(refused.value)


def test_a_call_goes_under_its_upstreams_base_path_and_nowhere_else():
    gw = parse_upstreams("gw=https://gw.example:8443/ai")["gw"]
    assert gw.target("v1/chat/completions", "") == "https://gw.example:8443/ai/v1/chat/completions"
    assert gw.target("v1/models/a%20b:x", "alt=sse&b=%2F") == (
        "https://gw.example:8443/ai/v1/models/a%20b:x?alt=sse&b=%2F"
    )
    assert gw.target("", "") == "https://gw.example:8443/ai/"
    # whatever the rest holds, the scheme, host and port are the upstream's
    assert gw.target("@evil.example/x", "").startswith("https://gw.example:8443/ai/")
    assert gw.target("//evil.example/x", "").startswith("https://gw.example:8443/ai/")


@pytest.mark.parametrize(
    "rest",
    [
        "../admin",
        "v1/../../admin",
        "v1/./x",
        "%2e%2e/admin",
        "v1/%2E/x",
        ".%2e/admin",
        "v1/..%2fadmin",
        "v1%5c..%5cadmin",
        "v1\\..\\admin",
        "v1/a b",
        "v1/a\tb",
        "v1/a%00b",
        "v1/#x",
        "a/..;/x",
        "a/..;jsessionid=1/x",
        "a/.;x/b",
        # issue 26: decoded twice, overlong UTF-8, more dots, a compatibility dot
        "%252e%252e/admin",
        "v1/%25252e%25252e/admin",
        "%c0%ae%c0%ae/admin",
        "v1/%e0%80%ae/x",
        ".../admin",
        "v1/..../x",
        "v1/%E2%80%A4%E2%80%A4/x",
        "v1%252fadmin",
        "v1%255c..%255cadmin",
    ],
)
def test_a_rest_that_could_be_read_two_ways_is_refused(rest):
    local = parse_upstreams("local=http://127.0.0.1:8000")["local"]
    with pytest.raises(BadTarget):
        local.target(rest, "")


@pytest.mark.parametrize(
    "rest", ["v1/chat/completions", "v1/a%2520b", "v1/models/x.y:z", "v1/.well-known"]
)
def test_a_rest_with_dots_and_escapes_that_read_one_way_goes_through(rest):
    local = parse_upstreams("local=http://127.0.0.1:8000")["local"]
    assert local.target(rest, "") == f"http://127.0.0.1:8000/{rest}"


@pytest.mark.parametrize(
    "name",
    ["X-Original-URL", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded", "X-Rewrite-URL"],
)
def test_headers_that_name_another_url_or_host_are_not_forwarded(name):
    """Issue 26: a gateway in front of the upstream may route by them."""
    sent = headers.to_upstream(
        [(name, "evil.example"), ("Authorization", "Bearer k"), ("X-Note", "n")]
    )
    assert all(n.lower() != name.lower() for n, _ in sent)
    assert ("Authorization", "Bearer k") in sent and ("X-Note", "n") in sent


def test_the_proxy_token_is_taken_out_of_the_query_and_the_rest_kept_as_sent():
    assert without_token("alt=sse&proxy_token=abc&key=K%2F1") == ("alt=sse&key=K%2F1", "abc")
    assert without_token("proxy%5Ftoken=a%20b") == ("", "a b")
    assert without_token("a=1&a=2") == ("a=1&a=2", None)
    assert without_token("") == ("", None)


def test_the_rest_of_the_path_is_taken_as_the_client_wrote_it():
    assert raw_rest("/proxy/local/v1/models/a%2Bb:x?alt=sse", "local", "") == "v1/models/a%2Bb:x"
    assert raw_rest("/proxy/loc%61l/v1/x", "local", "") == "v1/x"
    assert raw_rest("/proxy/local/", "local", "") == ""
    # a server without the raw target: the decoded path, encoded again
    assert raw_rest(None, "local", "/proxy/local/v1/a b") == "v1/a%20b"


def test_the_api_and_the_model_come_from_the_path_and_the_body():
    assert api_of("/v1/chat/completions").name == "chat"  # type: ignore[union-attr]
    assert api_of("/v1/completions").name == "completions"  # type: ignore[union-attr]
    assert api_of("/v1/messages").name == "anthropic"  # type: ignore[union-attr]
    assert api_of("/v1beta/models/g:streamGenerateContent").name == "gemini"  # type: ignore[union-attr]
    assert api_of("/api/generate").name == "ollama-generate"  # type: ignore[union-attr]
    assert api_of("/v1/embeddings") is None
    assert model_of({"model": "gpt-4o"}, "/v1/chat/completions") == "gpt-4o"
    assert model_of(None, "/v1beta/models/gemini-2.5-flash:streamGenerateContent") == (
        "gemini-2.5-flash"
    )
    assert model_of({"model": 3}, "/v1/chat/completions") is None


def test_hop_by_hop_headers_stay_on_their_hop():
    sent = headers.to_upstream(
        [
            ("Host", "127.0.0.1:5000"),
            ("Authorization", f"Bearer {KEY}"),
            ("Connection", "keep-alive, X-Hop"),
            ("X-Hop", "1"),
            ("Keep-Alive", "timeout=5"),
            ("Transfer-Encoding", "chunked"),
            ("TE", "trailers"),
            ("Upgrade", "h2c"),
            ("Proxy-Authorization", "Basic x"),
            ("Content-Length", "10"),
            ("Expect", "100-continue"),
            ("Cookie", "streamscope_theme=dark"),
            ("X-Streamscope-Proxy-Token", "t"),
            ("Accept-Encoding", "gzip, br"),
            ("Content-Type", "application/json"),
            ("anthropic-version", "2023-06-01"),
        ]
    )
    assert sent == [
        ("Authorization", f"Bearer {KEY}"),
        ("Content-Type", "application/json"),
        ("anthropic-version", "2023-06-01"),
        ("Accept-Encoding", "identity"),
    ]
    returned = headers.to_client(
        [
            ("Content-Type", "text/event-stream"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "close"),
            ("Date", "x"),
            ("Server", "uvicorn"),
            ("Set-Cookie", "a=b"),  # would be kept for Streamscope's origin, never sent on
            ("Clear-Site-Data", '"storage"'),  # would clear Streamscope's own storage
            ("Retry-After", "1"),
            ("x-request-id", "req_1"),
        ]
    )
    assert returned == [
        ("Content-Type", "text/event-stream"),
        ("Retry-After", "1"),
        ("x-request-id", "req_1"),
    ]


def test_credentials_are_known_whole_and_without_their_scheme_and_never_recorded():
    found = headers.credentials(
        [
            ("Authorization", f"Bearer {KEY}"),
            ("x-goog-api-key", "AIzaSyA-canary-0123456789"),
            ("X-Auth-Token", "plain-token-value-1"),
            ("Content-Type", "application/json"),
            ("api-key", "short"),
        ]
    )
    assert found == [
        f"Bearer {KEY}",
        KEY,
        "AIzaSyA-canary-0123456789",
        "plain-token-value-1",
    ]
    kept = headers.recorded(
        [
            ("Content-Type", "text/event-stream"),
            ("Set-Cookie", "session=abc"),
            ("x-api-key", KEY),
            ("Transfer-Encoding", "chunked"),
            ("x-ratelimit-remaining-tokens", "100"),
            ("Via", "1.1 a"),
            ("via", "1.1 b"),
        ]
    )
    assert kept == {
        "content-type": "text/event-stream",
        "x-ratelimit-remaining-tokens": "100",
        "via": "1.1 a, 1.1 b",
    }


def test_a_client_that_hung_up_is_seen_without_reading_from_it():
    ours, theirs = socket.socketpair()
    try:
        assert hung_up(ours) is False  # it waits, says nothing
        theirs.sendall(b"GET /next HTTP/1.1\r\n")  # a pipelined request is not a hang-up
        assert hung_up(ours) is False and ours.recv(100)
        theirs.close()
        assert hung_up(ours) is True
        assert hung_up(None) is False
    finally:
        ours.close()


def recording_of(tmp_path, max_bytes: int = 10_000_000):
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    registry = Registry()
    remembered = []
    recording = start_recording(
        store,
        registry,
        redactor=Redactor([KEY]),
        url="http://127.0.0.1:8000/v1/chat/completions?key=secret1234",
        source={"url": "http://127.0.0.1:8000/v1/chat/completions?key=secret1234", "kind": "proxy"},
        body=orjson.dumps({"model": "m", "api_key": KEY, "messages": [{"content": KEY}]}),
        title="Proxy local: POST /v1/chat/completions",
        api="chat",
        stall_ms=250.0,
        max_bytes=max_bytes,
        remember=lambda record, run: remembered.append(record.id),
    )
    assert recording is not None and registry.get(recording.capture_id) is recording.run
    return store, registry, recording, remembered


def test_a_recording_keeps_no_secret_and_reads_as_a_timed_capture(tmp_path):
    store, registry, recording, remembered = recording_of(tmp_path)
    recording.response(5.0, 200, "text/event-stream", {"content-type": "text/event-stream"})
    recording.read(10.0, b'data: {"choices": [{"index": 0, "delta": {"content": "hi ' + b"sk-proj-")
    recording.read(12.0, KEY.encode()[8:] + b'"}}]}\n\n')
    recording.end(20.0, "done", None)
    raw = store.read_bytes(recording.capture_id)
    assert KEY.encode() not in raw and b"secret1234" not in raw and b"sk-proj-" not in raw
    assert scrub(raw, "timed")[0] == raw  # nothing left for the upload scrubber to take
    (stream,) = read_capture(raw).streams
    assert stream.end_reason == "done" and stream.dialect_name == "chat-completions"
    assert registry.get(recording.capture_id) is None and remembered == [recording.capture_id]


def test_a_recording_reports_its_redactions_as_an_upload_does(tmp_path):
    """What the sweep took out of a proxied call's recording is listed with the capture, as an
    upload's is (the capture page's "Removed before storing", ``redacted`` in the API): while
    it streams (at each flush) and at its end. Before, the list stayed empty ("Nothing
    secret-looking was found") while the recording showed ``[redacted]``."""
    store, _, recording, _ = recording_of(tmp_path)
    recording.response(5.0, 200, "text/event-stream", {"content-type": "text/event-stream"})
    recording.read(10.0, b'data: {"choices": [{"index": 0, "delta": {"content": "' + KEY.encode())
    recording.read(12.0, b'"}}]}\n\n')
    recording.run.recorder.flush()
    record = store.get(recording.capture_id)
    assert record is not None and sum(item["count"] for item in record.redacted) >= 1
    recording.end(20.0, "done", None)
    record = store.get(recording.capture_id)
    assert record is not None
    raw = store.read_bytes(recording.capture_id)
    assert raw.count(b"[redacted") >= 2  # the key in the text, the key in the request body
    counts = {item["kind"]: item["count"] for item in record.redacted}
    assert sum(counts.values()) >= 2, counts


def test_a_recording_past_its_cap_stops_and_the_rest_is_not_recorded(tmp_path):
    store, registry, recording, _ = recording_of(tmp_path, max_bytes=3_000)
    recording.response(1.0, 200, "text/event-stream", {})
    event = b'data: {"choices": [{"index": 0, "delta": {"content": "' + b"x" * 500 + b'"}}]}\n\n'
    for t in range(20):
        recording.read(float(t + 2), event)
    assert recording.ended == "too_large" and registry.get(recording.capture_id) is None
    recording.end(30.0, "done", None)  # the call's own end: the recording has ended already
    raw = store.read_bytes(recording.capture_id)
    assert raw.count(b'"type":"read"') < 6 and b'"reason":"too_large"' in raw
    assert raw.count(b'"type":"end"') == 1


def test_a_recording_that_fails_ends_for_its_viewers_and_raises_nothing(tmp_path):
    store, registry, recording, _ = recording_of(tmp_path)

    def broken(capture_id: str, data: bytes) -> None:
        raise OSError("disk full")

    store.append = broken  # type: ignore[method-assign]
    recording.response(1.0, 200, "text/event-stream", {})
    for t in range(3):
        recording.read(300.0 * (t + 1), b"data: {}\n\n")  # past the recorder's flush time
    recording.end(1000.0, "done", None)
    assert recording.ended == "failed" and recording.run.finished
    assert registry.get(recording.capture_id) is None


def test_the_calls_are_listed_newest_first_with_what_their_timeline_says(tmp_path):
    _, _, recording, _ = recording_of(tmp_path)
    calls = Calls(kept=2)
    old = Call("local", "GET", "/v1/models", None)
    calls.add(old)
    streaming = Call("local", "POST", "/v1/chat/completions", "m", run=recording.run)
    calls.add(streaming)
    recording.response(1.0, 200, "text/event-stream", {})
    recording.read(40.0, b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n')
    listed = calls.listing()
    assert [c["path"] for c in listed] == ["/v1/chat/completions", "/v1/models"]
    assert listed[0]["dialect"] == "chat-completions" and listed[0]["ttft_ms"] == 40.0
    assert listed[0]["tokens"] == 1 and listed[1]["dialect"] is None
    calls.add(Call("local", "GET", "/third", None))
    assert [c["path"] for c in calls.listing()] == ["/third", "/v1/chat/completions"]


def test_an_ended_call_keeps_its_facts_not_its_timeline_and_learns_how_its_recording_ended(
    tmp_path,
):
    _, _, recording, _ = recording_of(tmp_path)
    call = Call("local", "POST", "/v1/chat/completions", "m", run=recording.run)
    recording.on_outcome = lambda outcome: setattr(call, "recording_end", outcome)
    recording.response(1.0, 200, "text/event-stream", {})
    recording.read(40.0, b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n')
    recording.end(50.0, "done", None)
    call.settle()
    assert call.run is None  # the list of 200 calls holds no timeline (the store has them)
    listed = call.to_json(0.0)
    assert listed["dialect"] == "chat-completions" and listed["ttft_ms"] == 40.0
    assert listed["tokens"] == 1 and listed["recording_end"] == "done"


def test_a_compressed_read_is_decoded_no_further_than_the_recordings_cap(tmp_path):
    # A 0.2 MB gzip read of 200 MB was decoded whole before the cap was checked (a peak of
    # about 320 MB for a run capped at 8 MB); it is decoded a piece at a time now.
    _, registry, recording, _ = recording_of(tmp_path, max_bytes=3_000_000)
    recording.response(1.0, 200, "text/event-stream", {"content-encoding": "gzip"})
    fed: list[int] = []
    read = recording.run.read
    recording.run.read = lambda t, data: (fed.append(len(data)), read(t, data))  # type: ignore[method-assign]
    event = b'data: {"choices": [{"index": 0, "delta": {"content": "xxxxxxxx"}}]}\n\n'
    bomb = gzip.compress(event * (200_000_000 // len(event)), compresslevel=9)
    assert len(bomb) < 1_000_000
    recording.read(2.0, bomb)
    assert recording.ended == "too_large" and registry.get(recording.capture_id) is None
    assert sum(fed) < 10_000_000 and max(fed) <= 1 << 20


def test_a_body_of_countless_tiny_objects_is_forwarded_but_not_parsed():
    # Parsed, 31 MB of "{}," took about 1.8 GB (twice: the model, the recording); such a body
    # is recorded as its size, and its model is not looked for.
    from app.proxy.recording import MAX_CONTAINERS, request_of
    from app.proxy.service import json_object

    body = b'{"model":"m","x":[' + b"{}," * MAX_CONTAINERS + b"{}]}"
    assert json_object(body) is None
    kept = request_of(body, Redactor([]))
    assert list(kept) == ["body"] and "not recorded" in kept["body"]
    small = b'{"model":"m","x":[' + b"{}," * 10 + b"{}]}"
    assert json_object(small)["model"] == "m" and request_of(small, Redactor([]))["model"] == "m"
