"""The timed export keeps the request the streams share (docs/capture-format.md, the header's
``request``; app/captures/export.py ``known_request``): a HAR entry's ``postData`` and its
request line, exported and read back, give the same request view; a stored upload's timed
download the same; streams with different requests, or none, give an empty ``request``."""

from __future__ import annotations

import json

import orjson

from app.captures import read_capture
from app.captures.export import to_timed
from app.domain.requests import request_view
from app.domain.requests.model import RequestView
from tests.helpers import corpus
from tests.scrub_views import importer, upload_views

BODY = {
    "model": "gpt-4o",
    "stream": True,
    "temperature": 0.3,
    "api_key": "cnrySECRETFIELD9",  # a secret field in the body: never exported
    "tools": [{"type": "function", "function": {"name": "GetWeatherArgs", "parameters": {}}}],
    "messages": [{"role": "user", "content": "What's the weather like in Edinburgh?"}],
}


def entry(post: object, url: str, text: str | None = None) -> dict:
    request: dict = {"method": "POST", "url": url, "headers": []}
    if post is not None:
        request["postData"] = {"mimeType": "application/json", "text": text or json.dumps(post)}
    return {
        "request": request,
        "response": {
            "status": 200,
            "headers": [],
            "content": {
                "mimeType": "text/event-stream",
                "text": corpus("openai-gpt4o-tool-single.sse").decode(),
            },
        },
    }


def har(*entries: dict) -> bytes:
    return json.dumps({"log": {"version": "1.2", "entries": list(entries)}}).encode()


URL = "https://u:pw@x.test/v1/chat/completions?key=cnrySECRETQUERY"


def shown(view: RequestView | None) -> dict:
    """What the request panel draws of a view: all of it but where it was known from."""
    assert view is not None
    return {k: v for k, v in view.to_json().items() if k != "source"}


def header_of(timed: bytes) -> dict:
    return orjson.loads(timed.split(b"\n", 1)[0])


def test_a_har_entrys_request_round_trips_through_the_timed_export():
    data = har(entry(BODY, URL))
    capture = read_capture(data)
    before = request_view(capture.streams[0])
    exported = to_timed(capture, data, source={"format": "har"})
    header = header_of(exported)
    assert header["source"] == {
        "format": "har",
        "url": "https://x.test/v1/chat/completions",
        "method": "POST",
    }
    assert header["request"]["model"] == "gpt-4o" and header["request"]["api_key"] == "[redacted]"
    back = read_capture(exported)
    assert back.format == "timed"
    after = request_view(back.streams[0])
    assert shown(after) == shown(before)
    assert after is not None and after.method == "POST" and after.params
    assert [t.name for t in after.tools] == ["GetWeatherArgs"]
    assert b"cnrySECRET" not in exported and b"pw@" not in exported


def test_a_stored_uploads_timed_download_keeps_the_request(tmp_path):
    data = har(entry(BODY, URL))
    views = upload_views(importer(tmp_path), data)
    assert b"cnrySECRET" not in views["download/timed"]
    back = request_view(read_capture(views["download/timed"]).streams[0])
    stored = request_view(read_capture(views["stored"]).streams[0])
    assert shown(back) == shown(stored)
    assert back is not None and back.url == "https://x.test/v1/chat/completions"
    assert {p.name: p.value for p in back.params}["temperature"] == 0.3


def test_different_requests_or_none_export_an_empty_request():
    other = {**BODY, "model": "gpt-4o-mini"}
    two = har(entry(BODY, URL), entry(other, URL))
    header = header_of(to_timed(read_capture(two), two))
    assert header["request"] == {} and "url" not in header["source"]
    same = har(entry(BODY, URL), entry(BODY, URL))
    assert header_of(to_timed(read_capture(same), same))["request"]["model"] == "gpt-4o"
    form = har(entry({}, URL, text="a=1&b=2"))
    header = header_of(to_timed(read_capture(form), form))
    assert header["request"] == {} and header["source"]["method"] == "POST"
    plain = corpus("openai-gpt4o-tool-single.sse")
    header = header_of(to_timed(read_capture(plain), plain))
    assert header["request"] == {} and header["source"] == {}
    assert request_view(read_capture(to_timed(read_capture(plain), plain)).streams[0]) is None
