"""Scrubbing uploads (docs/security.md, "Secrets in uploads"): the 40-secret HAR, what strict
JSON refuses but the reader reads, and every place item 5 of issue 10 found a survivor. Each
check goes through the path uploads take (``tests/scrub_views.py``) and looks for the secret in
the stored bytes and in every download and page view made from them."""

from __future__ import annotations

import base64
import gzip
import json

import orjson
import pytest

from app.captures.scrubbing import scrub
from app.web.errors import BadRequest

from .scrub_views import importer, memory_importer, scrub_findings, stored_count, upload_views
from .secret_har import BREAKERS, secret_har, survivors

KEY = "sk-cnryKEY0123456789abcdefXYZ"  # key-shaped: the sweep finds it anywhere
PLAIN = "cnryPLAIN7f3a"  # not key-shaped: only the rule for its place removes it


def sse(*contents: str) -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"content": c}}]} for c in contents]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)


def har(entry_request: dict | None = None, content: dict | None = None) -> bytes:
    entry = {
        "request": {"method": "POST", "url": "https://api.example.com/v1", **(entry_request or {})},
        "response": {
            "status": 200,
            "content": content or {"mimeType": "text/event-stream", "text": sse("hi").decode()},
        },
    }
    return json.dumps({"log": {"version": "1.2", "entries": [entry]}}).encode()


def timed(*records: dict) -> bytes:
    header = {"type": "header", "format": "streamscope.timed", "version": 1, "source": {}}
    lines = list(records) if records[0].get("type") == "header" else [header, *records]
    return b"".join(json.dumps(r).encode() + b"\n" for r in lines)


def found(views: dict[str, bytes], secret: str) -> list[str]:
    return [name for name, blob in views.items() if secret.encode() in blob]


# ------------------------------------------------------------------ item 4: the 40-secret HAR
@pytest.mark.parametrize("breaker", BREAKERS)
def test_no_secret_of_the_forty_survives_a_har_upload(tmp_path, breaker):
    data = secret_har(breaker)
    if breaker != "strict":
        with pytest.raises(orjson.JSONDecodeError):  # strict JSON refuses it ...
            orjson.loads(data)
    assert len(survivors(data)) == 38  # the two in the base64 body are there only encoded
    views = upload_views(importer(tmp_path), data)
    assert {name: survivors(blob) for name, blob in views.items() if survivors(blob)} == {}
    # ... and the capture still reads: both stream entries, the request model, redaction marks
    page = json.loads(views["page"])
    streams = [item for item in page if isinstance(item, list)]
    assert len(streams) == 2
    # the entry without a stream is said to be ignored, as reading the uploaded file says it
    # (its place is kept, so the entries keep their numbers: issue 28, item 19)
    assert [item["code"] for item in page if isinstance(item, dict)] == ["har_ignored"]
    assert page[0][0]["request"]["params"][0] == {
        "name": "model",
        "field": "model",
        "value": "gpt-x",
    }
    assert b"[redacted]" in views["download/jsonl"]


def test_a_har_with_a_lone_surrogate_is_read_the_same_after_scrubbing():
    """The scrubber reads the file with the reader's own decoder (strict, else lenient)."""
    clean, _ = scrub(secret_har("lone-surrogate"), "har")
    reference, _ = scrub(secret_har("strict"), "har")
    assert json.loads(clean)["log"]["entries"] == json.loads(reference)["log"]["entries"]


def test_a_har_the_reader_cannot_read_is_refused_with_where_and_why(tmp_path):
    imp = importer(tmp_path)
    truncated = secret_har()[:-40]
    with pytest.raises(BadRequest) as refused:
        imp.run(truncated, title=None, expires=None, fmt="har", name=None)
    assert refused.value.code == "cannot_scrub"
    assert "line 1 column" in refused.value.message
    assert refused.value.extra["where"] == "the HAR file"
    assert stored_count(tmp_path) == 0


def test_gzip_inside_gzip_is_refused_not_stored_compressed(tmp_path):
    """The reader would decompress the inner gzip again and read what the scrubber never saw."""
    imp = importer(tmp_path)
    data = gzip.compress(gzip.compress(sse(f"key {KEY}")))
    with pytest.raises(BadRequest) as refused:
        imp.run(data, title=None, expires=None, fmt="sse", name=None)
    assert refused.value.code == "cannot_scrub"
    assert "gzip inside gzip" in refused.value.message
    assert stored_count(tmp_path) == 0


# ------------------------------------------------------------------ item 5: query parameters
SECRET_PARAMS = [
    "api-key",
    "x-api-key",
    "access-token",
    "client_secret",
    "password",
    "auth",
    "session",
    "API-KEY",
    "Api_Key",
    "Access_Token",
    "CLIENT-SECRET",
    "X-Amz-Signature",
    "key",
    "sig",
]


@pytest.mark.parametrize("name", SECRET_PARAMS)
def test_secret_query_parameters_in_any_case_and_separator(tmp_path, name):
    url = f"https://api.example.com/v1/chat?model=m&{name}={PLAIN}"
    views = upload_views(importer(tmp_path), har({"url": url}))
    assert found(views, PLAIN) == []
    assert "model=m" in json.loads(views["stored"])["log"]["entries"][0]["request"]["url"]


@pytest.mark.parametrize("name", SECRET_PARAMS)
def test_secret_query_parameters_in_a_url_inside_stream_content(tmp_path, name):
    body = sse(f"see https://example.com/cb?{name}={PLAIN}&x=1 or #{name}={PLAIN}")
    assert found(upload_views(importer(tmp_path), body), PLAIN) == []


# ------------------------------------------------------------------ item 5: request bodies
@pytest.mark.parametrize(
    "body",
    [
        {"api_key": PLAIN},
        {"apiKey": PLAIN},
        {"password": PLAIN},
        {"client_secret": PLAIN},
        {"token": PLAIN},
        {"access_token": PLAIN},
        {"X-API-KEY": PLAIN},
        {"auth": {"user": "u", "secret": PLAIN}},
        {"credentials": [{"name": "x-api-key", "value": PLAIN}]},
        {"keys": {"session": [PLAIN]}},
    ],
    ids=lambda body: next(iter(body)),
)
def test_secret_json_fields_in_a_har_request_body(tmp_path, body):
    post = {"mimeType": "application/json", "text": json.dumps({"model": "m", **body})}
    views = upload_views(importer(tmp_path), har({"postData": post}))
    assert found(views, PLAIN) == []
    model = json.loads(views["page"])[0][0]["request"]["params"][0]
    assert model == {"name": "model", "field": "model", "value": "m"}


def test_a_plain_key_in_a_form_encoded_har_request_body(tmp_path):
    post = {
        "mimeType": "application/x-www-form-urlencoded",
        "text": f"model=m&api-key={PLAIN}&Client_Secret={PLAIN}",
        "params": [{"name": "api-key", "value": PLAIN}],
    }
    assert found(upload_views(importer(tmp_path), har({"postData": post})), PLAIN) == []


def test_a_request_body_neither_json_nor_a_form_is_dropped(tmp_path):
    post = {"mimeType": "text/plain", "text": f"my password is {PLAIN}"}
    views = upload_views(importer(tmp_path), har({"postData": post}))
    assert found(views, PLAIN) == []


# ------------------------------------------------------------------ item 5: base64 bodies
def test_a_key_in_a_base64_har_body_that_is_not_utf8(tmp_path):
    body = sse(f"key {KEY}") + b": \xff not UTF-8\n\n"
    content = {
        "mimeType": "text/event-stream",
        "encoding": "base64",
        "text": base64.b64encode(body).decode(),
    }
    views = upload_views(importer(tmp_path), har(content=content))
    assert found(views, KEY) == []
    assert b"[redacted]" in views["download/sse"]


def test_a_key_in_a_base64_timed_read(tmp_path):
    body = base64.b64encode(sse(f"key {KEY}")).decode()
    data = timed({"type": "read", "t": 5.0, "base64": body}, {"type": "end", "t": 6.0})
    views = upload_views(importer(tmp_path), data)
    assert found(views, KEY) == []
    assert b"[redacted]" in views["download/jsonl"]


def test_a_key_cut_in_two_by_a_timed_read_boundary(tmp_path):
    body = sse(f"key {KEY} end").decode()
    cut = body.index(KEY) + 7
    data = timed(
        {"type": "read", "t": 5.0, "text": body[:cut]},
        {"type": "read", "t": 6.0, "text": body[cut:]},
        {"type": "end", "t": 7.0},
    )
    views = upload_views(importer(tmp_path), data)
    assert found(views, KEY) == [] and found(views, KEY[:7]) == []
    assert b"[redacted] end" in views["download/jsonl"]


# ------------------------------------------------------------------ item 5: timed headers
def test_secrets_in_a_timed_header_source_url_and_request(tmp_path):
    header = {
        "type": "header",
        "format": "streamscope.timed",
        "version": 1,
        "source": {"url": f"https://u:{PLAIN}1@api.example.com/v1?key={PLAIN}2", "kind": "live"},
        "request": {
            "model": "m",
            "api_key": f"{PLAIN}3",
            "messages": [{"role": "user", "content": f"https://h/x?access-token={PLAIN}4"}],
            "headers": {"X-Api-Key": f"{PLAIN}5"},
            "callback": {"url": f"https://h/cb?session={PLAIN}6"},
        },
    }
    data = timed(header, {"type": "read", "t": 1.0, "text": sse("hi").decode()})
    views = upload_views(importer(tmp_path), data)
    assert found(views, PLAIN) == []
    assert json.loads(views["stored"].split(b"\n")[0])["request"]["model"] == "m"


# ------------------------------------------------------------------ item 5: curl -i
@pytest.mark.parametrize(
    "header",
    [
        f"set-cookie: session={PLAIN}; HttpOnly",
        f"Set-Cookie: a=b;\r\n  session={PLAIN}",  # a folded continuation line
        f"X-API-KEY: {PLAIN}",
        f"api-key: {PLAIN}",
        f"Authorization: Token {PLAIN}",
        f"x-goog-api-key: {PLAIN}",
        f"X-Auth-Token : {PLAIN}",
        f"Location: https://example.com/cb?code={PLAIN}",
    ],
)
def test_secret_headers_in_curl_i_response_heads(tmp_path, header):
    data = (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        + header.encode()
        + b"\r\nx-request-id: req-1\r\n\r\n"
        + sse("hi")
    )
    views = upload_views(importer(tmp_path), data)
    assert found(views, PLAIN) == []
    assert b"x-request-id: req-1" in views["stored"]


def test_curl_v_request_headers_pasted_into_an_sse_file(tmp_path):
    data = f"> x-api-key: {PLAIN}\n> Cookie: sid={PLAIN}\n\n".encode() + sse("hi")
    assert found(upload_views(importer(tmp_path), data, fmt="sse"), PLAIN) == []


def test_secret_header_lines_after_a_lone_cr_and_in_sse_comments(tmp_path):
    """SSE ends a line at CR as well as LF; a comment line is shown on the page."""
    data = f": x-api-key: {PLAIN}1\r\rCookie: sid={PLAIN}2\n\n".encode() + sse("hi")
    assert found(upload_views(importer(tmp_path), data, fmt="sse"), PLAIN) == []
    head = f"HTTP/1.1 200 OK\r\nA: b\rX-Api-Key: {PLAIN}3\r\n\r\n".encode()
    assert found(upload_views(importer(tmp_path), head + sse("hi"), fmt="curl"), PLAIN) == []


# ------------------------------------------------------------------ decoded content
@pytest.mark.parametrize("fmt", ["sse", "jsonl", "json", "docs"])
def test_secrets_hidden_by_json_escapes_are_swept_as_decoded(tmp_path, fmt):
    escaped = KEY[:5] + f"\\u{ord(KEY[5]):04x}" + KEY[6:]
    payloads = [
        '{"choices":[{"index":0,"delta":{"content":"key ' + escaped + '"}}]}',
        '{"choices":[{"index":0,"delta":{"content":"https:\\/\\/u:' + PLAIN + '@h\\/x"}}]}',
        '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f",'
        '"arguments":"{\\"api_key\\": \\"' + PLAIN + '\\"}"}}]}}]}',
        '{"choices":[{"index":0,"delta":{"content":"a\\nx-api-key: ' + PLAIN + '\\nb"}}]}',
    ]
    data = {
        "sse": "".join(f"data: {p}\n\n" for p in payloads),
        "jsonl": "".join(f"{p}\n" for p in payloads),
        "json": "[" + ",\n".join(payloads) + "]",
        "docs": "Prose.\n\n" + "".join(f"data: {p}\n\n" for p in payloads),
    }[fmt].encode()
    views = upload_views(importer(tmp_path), data, fmt=fmt)
    assert found(views, KEY) == [] and found(views, PLAIN) == []


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
@pytest.mark.parametrize("kind", ["har", "timed"])
def test_a_har_or_timed_capture_forced_to_read_as_plain_json_is_refused(tmp_path, fmt, kind):
    """Read as plain JSON, its headers, cookies and request would be payload text."""
    data = (
        secret_har() if kind == "har" else timed({"type": "read", "t": 1.0, "text": "data: x\n\n"})
    )
    imp = importer(tmp_path)
    with pytest.raises(BadRequest) as refused:
        imp.run(data, title=None, expires=None, fmt=fmt, name=None)
    assert refused.value.code == "cannot_scrub"
    assert f"upload it as {kind}" in refused.value.message
    assert stored_count(tmp_path) == 0


def test_har_style_header_pairs_in_plain_json_lose_their_values(tmp_path):
    """A HAR-like object that detection does not take for a HAR (``log`` comes late)."""
    headers = [{"name": "X-Auth-Token", "value": PLAIN}, {"name": "Accept", "value": "ok"}]
    data = json.dumps({"note": "x" * 5000, "log": {"entries": [{"request": {"headers": headers}}]}})
    views = upload_views(importer(tmp_path), data.encode())
    assert found(views, PLAIN) == []
    assert b'"value": "ok"' in views["stored"]


# ------------------------------------------------------------------ secrets, not data
def test_a_secret_field_pattern_never_swallows_a_line_break():
    """A JSON string never spans lines: a value cut by a blank line is not redacted across it
    (two SSE events would become one)."""
    data = b'data: "password": "a\n\ndata: "b"\n\n'
    assert scrub_findings(memory_importer(), data, "sse") == []
    clean, _ = scrub(data, "sse")
    assert clean.count(b"\n\n") == 2
