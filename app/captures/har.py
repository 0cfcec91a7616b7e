"""HAR 1.2 files exported from browser DevTools: one stream per event-stream entry.

An entry is a stream when its response says ``text/event-stream`` or its body starts like one.
Bodies may be base64 (``content.encoding``). Other entries are ignored, and counted.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from ..domain.jsontext import decode_document
from ..domain.stream import Source, Stream
from .model import Capture, Limits
from .sse import read_sse_body

NOT_A_HAR = "not a HAR file: no log.entries list"


def read_har(data: bytes, capture: Capture, limits: Limits) -> list[Stream]:
    decoded = decode_document(data)
    for problem in decoded.problems:
        capture.note(problem.code, problem.severity, problem.message)
    entries = har_entries(decoded.value)
    if entries is None:
        capture.note("har_shape", "error", NOT_A_HAR)
        return []
    streams: list[Stream] = []
    ignored = 0
    for number, entry in enumerate(entries, start=1):
        body = stream_body(entry, number, capture) if isinstance(entry, dict) else None
        if body is None:
            ignored += 1
            continue
        request = entry.get("request") if isinstance(entry.get("request"), dict) else {}
        origin = f"HAR entry {number}: {request.get('method', '?')} {_bare_url(request.get('url'))}"
        for stream in read_sse_body(Source(body), body, limits, origin=origin):
            stream.index = len(streams)
            stream.request = _request_summary(request)
            streams.append(stream)
    if ignored:
        capture.note("har_ignored", "info", f"{ignored} entries without an event stream ignored")
    if not streams:
        capture.note("har_no_stream", "error", "the HAR file has no event-stream entry")
    return streams


def har_entries(har: Any) -> list[Any] | None:
    log = har.get("log") if isinstance(har, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    return entries if isinstance(entries, list) else None


def stream_mime(response: dict[str, Any]) -> str:
    """The body's media type: the content's ``mimeType``, else the ``Content-Type`` header."""
    content = _object(response.get("content"))
    return str(content.get("mimeType") or _header(response, "content-type") or "").lower()


def stream_body(entry: dict[str, Any], number: int, capture: Capture) -> bytes | None:
    """The decoded body of an event-stream entry; None for any other entry."""
    response = entry.get("response")
    if not isinstance(response, dict):
        return None
    content = _object(response.get("content"))
    text = content.get("text")
    if not isinstance(text, str):
        return None
    mime = stream_mime(response)
    if content.get("encoding") == "base64":
        try:
            body = base64.b64decode(text, validate=False)
        except (binascii.Error, ValueError):
            capture.note("har_base64", "error", f"entry {number}: the base64 body does not decode")
            return None
    else:
        body = text.encode("utf-8", errors="replace")
    if "event-stream" in mime or body.lstrip().startswith((b"data:", b":", b"event:")):
        return body
    return None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _header(message: dict[str, Any], name: str) -> str | None:
    headers = message.get("headers")
    for header in headers if isinstance(headers, list) else []:
        if isinstance(header, dict) and str(header.get("name", "")).lower() == name:
            return str(header.get("value"))
    return None


def _bare_url(url: Any) -> str:
    """The URL without query or fragment: those are where keys hide."""
    if not isinstance(url, str):
        return "?"
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. "http://[" (an unclosed IPv6 literal)
        return "?"
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def _request_summary(request: dict[str, Any]) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "method": request.get("method"),
        "url": _bare_url(request.get("url")),
    }
    post = request.get("postData")
    if isinstance(post, dict) and isinstance(post.get("text"), str):
        try:
            body = orjson.loads(post["text"])
        except orjson.JSONDecodeError:
            body = None
        if isinstance(body, dict):
            summary["model"] = body.get("model")
    return summary
