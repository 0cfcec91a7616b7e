"""The request and the response headers reach the rules from every capture that holds them:
a HAR entry (its posted body's parameters, its mime type), ``curl -v`` (the Content-Type),
a timed capture (its header's request and response record)."""

from __future__ import annotations

import json

from tests.rules.cases import text, usage_chunk
from tests.rules.kit import rules_of, sse, streams, timed

BODY = sse(*text("a"))


def har(body: bytes, post: dict, mime: str = "text/event-stream") -> bytes:
    entry = {
        "request": {
            "method": "POST",
            "url": "https://x.test/v1/chat/completions",
            "headers": [],
            "postData": {"text": json.dumps(post)},
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {"mimeType": mime, "text": body.decode()},
        },
    }
    return json.dumps({"log": {"entries": [entry]}}).encode()


def test_a_har_entrys_request_parameters_reach_the_request_aware_rules():
    asked = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream_options": {"include_usage": True},
        "n": 1,
    }
    assert "usage-missing" in rules_of(har(BODY, asked))
    assert "usage-missing" not in rules_of(har(sse(*text("a"), usage_chunk()), asked))
    (stream,) = streams(har(BODY, asked))
    assert "messages" not in stream.request["params"]  # only what shapes a stream is kept


def test_a_har_entrys_mime_type_reaches_content_type_mismatch():
    assert "content-type-mismatch" in rules_of(har(BODY, {"model": "m"}, mime="text/plain"))
    assert "content-type-mismatch" not in rules_of(har(BODY, {"model": "m"}))


def test_curl_v_content_type_reaches_content_type_mismatch():
    def curl(content_type: str) -> bytes:
        return b"HTTP/1.1 200 OK\r\ncontent-type: " + content_type.encode() + b"\r\n\r\n" + BODY

    assert "content-type-mismatch" in rules_of(curl("text/plain"))
    assert "content-type-mismatch" not in rules_of(curl("text/event-stream; charset=utf-8"))


def test_without_a_request_the_request_aware_rules_are_not_judged():
    # the same stream that breaks usage-missing where the request asked for usage
    assert "usage-missing" not in rules_of(BODY)
    assert "usage-missing" in rules_of(
        timed(BODY, request={"model": "m", "stream_options": {"include_usage": True}})
    )
