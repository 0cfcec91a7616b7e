"""Hypothesis: for captures of every format (sse, docs, jsonl, json, har, curl, timed,
eventstream, and gzip of each), with canaries planted in every place a secret hides (headers,
query parameters, URL user-info, request bodies and their JSON fields, base64 bodies, stream
content, JSON escapes, read boundaries, event-stream header values), no canary survives an
upload: not in the stored bytes, nor in any download (original, timed, jsonl, sse), nor in what
the page is sent. Uploads go through the path the server takes (tests/scrub_views.py: the
Importer, then the stored bytes read back)."""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import string
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.eventstream_format import encode_frame, encode_header
from app.web.errors import BadRequest

from .eventstream_frames import frame
from .scrub_views import importer, memory_importer, scrub_findings, upload_views

PROFILE = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
ALNUM = string.ascii_letters + string.digits

HEADERS = ["Authorization", "Proxy-Authorization", "api-key", "x-api-key", "x-goog-api-key",
           "Cookie", "Set-Cookie", "X-Auth-Token", "x-amz-security-token", "Private-Token",
           "x-session-id"]  # fmt: skip
PARAMS = ["key", "api-key", "api_key", "apikey", "x-api-key", "access-token", "access_token",
          "client_secret", "password", "auth", "session", "token", "sig", "signature", "code",
          "X-Amz-Signature", "X-Amz-Credential", "refresh_token", "id_token"]  # fmt: skip
REQUEST_FIELDS = ["api_key", "apiKey", "password", "client_secret", "token", "access_token",
                  "secret", "auth", "x-api-key", "Authorization", "sessionToken",
                  "refreshToken", "private_key", "passwd", "cookie"]  # fmt: skip
STREAM_FIELDS = ["api_key", "apiKey", "password", "client_secret", "access_token",
                 "authorization", "cookie", "x-api-key", "refresh_token"]  # fmt: skip
KEY_SHAPES = ["sk-{}", "sk-proj-{}", "sk-ant-api03-{}", "AIza{}", "eyJ{0}.eyJ{0}.{0}",
              "ghp_{}", "hf_{}", "Bearer {}"]  # fmt: skip


class Plant:
    """Hands out unique canaries and remembers them."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        self.draw = draw
        self.canaries: list[str] = []

    def plain(self) -> str:
        canary = f"cnry{len(self.canaries):03d}Z{self.draw(st.text(ALNUM, min_size=6, max_size=6))}"
        self.canaries.append(canary)
        return canary

    def key(self) -> str:
        """A key-shaped secret; the canary is its distinctive part."""
        core = self.plain() + "x" * 30
        self.canaries[-1] = core
        return self.draw(st.sampled_from(KEY_SHAPES)).format(core)

    def name(self, names: list[str]) -> str:
        """A secret name in any letter case, with ``-`` or ``_``."""
        name = self.draw(st.sampled_from(names))
        case = self.draw(st.sampled_from([str, str.lower, str.upper, str.title]))
        sep = self.draw(st.sampled_from(["-", "_", None]))
        name = case(name)
        return name.replace("-", sep).replace("_", sep) if sep else name

    def url(self) -> str:
        userinfo = f"{self.plain()}:{self.plain()}@" if self.draw(st.booleans()) else ""
        params = "&".join(
            f"{self.name(PARAMS)}={self.plain()}" for _ in range(self.draw(st.integers(1, 3)))
        )
        return f"https://{userinfo}api.example.com/v1/chat?model=m&{params}"

    def content(self) -> str:
        if self.draw(st.booleans()):
            return f"my key {self.key()} ok"
        return f"see {self.url()} ok"


def encode(value: Any, plant: Plant, escape: bool) -> str:
    """JSON text; with ``escape``, canaries carry a ``\\u00XX`` escape and slashes are ``\\/``
    (both valid JSON: only a decoder sees the secret whole)."""
    text = json.dumps(value)
    if escape:
        for canary in plant.canaries:
            text = text.replace(canary, canary[:2] + f"\\u{ord(canary[2]):04x}" + canary[3:])
        text = text.replace("/", "\\/")
    return text


def chunks(draw: Callable[[Any], Any], plant: Plant) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        chunk: dict[str, Any] = {"choices": [{"index": 0, "delta": {"content": plant.content()}}]}
        if draw(st.booleans()):
            chunk[plant.name(STREAM_FIELDS)] = plant.plain()
        out.append(chunk)
    return out


def sse_body(draw: Callable[[Any], Any], plant: Plant) -> str:
    escape = draw(st.booleans())
    lines = [f"data: {encode(chunk, plant, escape)}\n\n" for chunk in chunks(draw, plant)]
    if draw(st.booleans()):  # a pasted header line (an unknown SSE field)
        lines.insert(draw(st.integers(0, len(lines))), f"{plant.name(HEADERS)}: {plant.plain()}\n")
    return "".join(lines) + "data: [DONE]\n\n"


def request_body(draw: Callable[[Any], Any], plant: Plant) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "m",
        "messages": [{"role": "user", "content": plant.content()}],
    }
    for _ in range(draw(st.integers(1, 3))):
        value: Any = plant.plain()
        if draw(st.booleans()):
            value = draw(st.sampled_from([[value], {plant.name(REQUEST_FIELDS): value}]))
        body[plant.name(REQUEST_FIELDS)] = value
    if draw(st.booleans()):
        body["headers"] = [{"name": plant.name(HEADERS), "value": plant.plain()}]
    return body


# ------------------------------------------------------------------ formats
def build_sse(draw, plant):
    return sse_body(draw, plant).encode()


def build_docs(draw, plant):
    escape = draw(st.booleans())
    out = [
        f"Call it with {plant.url()} and this header:\n{plant.name(HEADERS)}: {plant.plain()}\n\n"
    ]
    for chunk in chunks(draw, plant):
        pretty = encode(chunk, plant, escape) if escape else json.dumps(chunk, indent=2)
        out.append(f"data: {pretty}\n\n...\n\n" if not escape else f"data: {pretty}\n\n")
    return "".join(out).encode()


def build_jsonl(draw, plant):
    escape = draw(st.booleans())
    return "".join(encode(c, plant, escape) + "\n" for c in chunks(draw, plant)).encode()


def build_json(draw, plant):
    escape = draw(st.booleans())
    return ("[" + ",\n".join(encode(c, plant, escape) for c in chunks(draw, plant)) + "]").encode()


def build_har(draw, plant):
    har_entries = []
    for _ in range(draw(st.integers(1, 2))):
        body = sse_body(draw, plant).encode()
        content: dict[str, Any] = {"mimeType": "text/event-stream", "text": body.decode()}
        if draw(st.booleans()):
            extra = b": \xff\n\n" if draw(st.booleans()) else b""  # not UTF-8 once decoded
            content.update(encoding="base64", text=base64.b64encode(body + extra).decode())
        post: dict[str, Any] = {"mimeType": "application/json"}
        if draw(st.booleans()):
            post["text"] = json.dumps(request_body(draw, plant))
        else:
            post.update(mimeType="application/x-www-form-urlencoded",
                        text=f"model=m&{plant.name(PARAMS)}={plant.plain()}",
                        params=[{"name": "password", "value": plant.plain()}])  # fmt: skip
        headers = [{"name": plant.name(HEADERS), "value": plant.plain()} for _ in range(2)]
        har_entries.append({
            "startedDateTime": "2026-11-29T10:00:00Z",
            "request": {"method": "POST", "url": plant.url(), "postData": post,
                        "headers": headers, "cookies": [{"name": "sid", "value": plant.plain()}]},
            "response": {"status": 200, "content": content, "redirectURL": plant.url(),
                         "headers": [{"name": "Set-Cookie", "value": f"s={plant.plain()}"}]},
        })  # fmt: skip
    log: dict[str, Any] = {"version": "1.2", "creator": {"name": "t"}, "entries": har_entries}
    breaker = draw(st.sampled_from(["", "surrogate", "nan"]))
    if breaker == "surrogate":
        log["creator"]["comment"] = "\ud800"
    elif breaker == "nan":
        har_entries[0]["time"] = float("nan")
    return json.dumps({"log": log}).encode()


def build_curl(draw, plant):
    eol = draw(st.sampled_from(["\r\n", "\n"]))
    lines = ["HTTP/1.1 200 OK", "content-type: text/event-stream"]
    for _ in range(draw(st.integers(1, 3))):
        lines.append(f"{plant.name(HEADERS)}: {plant.plain()}")
        if draw(st.booleans()):
            lines.append(f"  folded={plant.plain()}")
    lines.append(f"Location: {plant.url()}")
    head = eol.join(lines) + eol + eol
    if draw(st.booleans()):
        head = f"HTTP/1.1 100 Continue{eol}{eol}" + head
    return (head + sse_body(draw, plant)).encode()


def build_timed(draw, plant):
    header = {"type": "header", "format": "streamscope.timed", "version": 1,
              "created": "2026-11-29T10:00:00.000Z", "source": {"url": plant.url()},
              "request": request_body(draw, plant),
              "response": {"status": 200, "content_type": "text/event-stream"}}  # fmt: skip
    body = sse_body(draw, plant).encode()
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=6)))
    points = [0, *cuts, len(body)]
    records = [header]
    for number, (start, end) in enumerate(itertools.pairwise(points)):
        piece = body[start:end]
        if draw(st.booleans()):
            records.append(
                {"type": "read", "t": float(number), "base64": base64.b64encode(piece).decode()}
            )
        else:
            records.append({"type": "read", "t": float(number), "text": piece.decode()})
    records.append({"type": "end", "t": 99.0, "reason": "error", "error": plant.content()})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def build_eventstream(draw, plant):
    escape = draw(st.booleans())
    out = frame("messageStart", {"role": "assistant"})
    for chunk in chunks(draw, plant):
        delta = {"contentBlockIndex": 0, "delta": {"text": chunk["choices"][0]["delta"]["content"]}}
        extra = {key: value for key, value in chunk.items() if key != "choices"}
        out += frame("contentBlockDelta", encode({**delta, **extra}, plant, escape).encode())
    if draw(st.booleans()):
        headers = encode_header(":message-type", "error")
        out += encode_frame(headers + encode_header(":error-message", plant.content()), b"")
    return out + frame("messageStop", {"stopReason": "end_turn"})


BUILDERS = {
    "sse": build_sse,
    "docs": build_docs,
    "jsonl": build_jsonl,
    "json": build_json,
    "har": build_har,
    "curl": build_curl,
    "timed": build_timed,
    "eventstream": build_eventstream,
}


@st.composite
def planted_capture(draw: Callable[[Any], Any]) -> tuple[str, bytes, list[str]]:
    fmt = draw(st.sampled_from(sorted(BUILDERS)))
    plant = Plant(draw)
    return fmt, BUILDERS[fmt](draw, plant), plant.canaries


@pytest.fixture(scope="module")
def imp(tmp_path_factory):
    return importer(tmp_path_factory.mktemp("scrub-properties"))


@PROFILE
@given(capture=planted_capture(), compress=st.booleans(), forced=st.booleans())
def test_no_planted_canary_survives_an_upload(imp, capture, compress, forced):
    fmt, data, canaries = capture
    assert canaries
    if compress:
        data = gzip.compress(data)
    try:
        views = upload_views(imp, data, fmt=fmt if forced else None)
    except BadRequest as refused:  # every capture built here reads: none may be refused
        raise AssertionError(f"{fmt} refused: {refused.message}") from None
    survivors = {
        view: [c for c in canaries if c.encode() in blob]
        for view, blob in views.items()
        if any(c.encode() in blob for c in canaries)
    }
    assert survivors == {}, (fmt, data[:3000])


SCRUB_ALPHABET = st.sampled_from(
    ["data: ", "data:{", "\n", "\r", "\n\n", " ", ":", "{", "}", "[", "]", ",", '"', "\\",
     "\\n", "\\u0041", "\\/", "x-api-key", "Cookie", "token", "key", "password", "api_key",
     '"api_key":', '"name":"x-api-key","value":', "?key=", "&session=", "#access_token=",
     "https://", "u:p@", "h/", "sk-", "proj-", "ant-", "0123456789abcdef", "Bearer ", "AIza",
     "eyJ", ".", "abc", "=", "> ", "HTTP/1.1 200 OK\r\n", "[redacted]", "\xff", "é"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(SCRUB_ALPHABET, max_size=40).map("".join),
    fmt=st.sampled_from([None, *sorted(BUILDERS)]),
)
def test_scrubbing_leaves_no_key_changes_nothing_twice_and_loses_nothing(text, fmt):
    """For any text the readers take: no key shape in any view, a second scrub changes nothing,
    and no stream or raw event is lost (tests/scrub_views.py scrub_findings)."""
    data = text.encode("utf-8", "surrogateescape")
    assert scrub_findings(memory_importer(), data, fmt) == []
