"""HAR 1.2 files exported from browser DevTools: one stream per event-stream entry.

An entry is a stream when its response says ``text/event-stream`` or its body starts like one.
Bodies may be base64 (``content.encoding``). Other entries are ignored, and counted.

A HAR has no per-event times, but each entry has its whole response's (``timings``: blocked,
dns, connect, send, wait, receive in ms, -1 for "does not apply"; ``startedDateTime``; ``time``):
they give the stream's time to first byte and to the end (docs/formats.md).
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from ..domain.jsontext import decode_document
from ..domain.shapes import as_object
from ..domain.stream import RequestLine, ResponseTiming, Source, Stream
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
        found = read_sse_body(Source(body), body, limits, origin=origin)
        timing = _timing(entry, number, capture)
        if timing is not None and len(found) > 1:
            capture.note(
                "har_timings",
                "info",
                f"entry {number} holds {len(found)} streams; its timings cover them all and "
                "are not used",
            )
            timing = None
        for stream in found:
            stream.index = len(streams)
            stream.request = _request_summary(request)
            url = stream.request["url"]
            stream.request_line = RequestLine(_method(request), url if url != "?" else None, "har")
            stream.content_type = stream_mime(as_object(entry.get("response"))) or None
            stream.response_timing = timing
            if timing is not None:
                _replay_times(stream, timing)
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
    content = as_object(response.get("content"))
    return str(content.get("mimeType") or _header(response, "content-type") or "").lower()


def stream_body(entry: dict[str, Any], number: int, capture: Capture) -> bytes | None:
    """The decoded body of an event-stream entry; None for any other entry."""
    response = entry.get("response")
    if not isinstance(response, dict):
        return None
    content = as_object(response.get("content"))
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


_BEFORE_FIRST_BYTE = ("blocked", "dns", "connect", "send")  # "ssl" is part of "connect"


def _timing(entry: dict[str, Any], number: int, capture: Capture) -> ResponseTiming | None:
    """The entry's time to the response's first byte (blocked + dns + connect + send + wait)
    and to its last (+ receive, else the entry's ``time``); None when it says neither."""
    timings = entry.get("timings")
    total = _ms(entry.get("time"))
    if not isinstance(timings, dict) and total is None:
        return None
    timings = timings if isinstance(timings, dict) else {}
    wait, receive = _ms(timings.get("wait")), _ms(timings.get("receive"))
    before = [_ms(timings.get(name), absent=0.0) for name in _BEFORE_FIRST_BYTE]
    first_byte = None
    if wait is not None and all(ms is not None for ms in before):
        first_byte = sum(ms for ms in before if ms is not None) + wait
    end = first_byte + receive if first_byte is not None and receive is not None else total
    if (first_byte is None and end is None) or not _finite(first_byte, end):
        capture.note(
            "har_timings",
            "warning",
            f"entry {number}: its timings are not usable (wait, receive, time); timing unknown",
        )
        return None
    started = entry.get("startedDateTime")
    started = started[:64] if isinstance(started, str) and started else None
    return ResponseTiming("har", first_byte, end, started)


def _replay_times(stream: Stream, timing: ResponseTiming) -> None:
    """Times to replay the entry on its own timings: its first event at the response's first
    byte, its last at the last byte, the others spread evenly between (the HAR says only when
    the body began and ended). Only the replay reads them: the stream stays untimed, so its
    metrics are the entry's TTFT and E2EL, never gaps made up here."""
    first, end = timing.first_byte_ms, timing.end_ms
    if first is None or end is None or end < first or not stream.raw:
        return
    if any(raw.t is not None for raw in stream.raw):
        return
    last = len(stream.raw) - 1
    for i, raw in enumerate(stream.raw):
        raw.t = round(first + (end - first) * i / last, 3) if last else first


def _ms(value: Any, absent: float | None = None) -> float | None:
    """A HAR time in ms: a number >= 0; -1 ("does not apply") and a missing one are ``absent``."""
    if value is None or value == -1:
        return absent
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        ms = float(value)
    except OverflowError:  # an integer beyond what a double holds
        return None
    return ms if 0 <= ms < math.inf else None


def _finite(*values: float | None) -> bool:
    return all(value is None or math.isfinite(value) for value in values)


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
            summary["params"] = params_of(body)
        if body is not None:  # the posted JSON as it is, for the request panel (requests/)
            summary["body"] = body
    return summary


# The parameters of a posted body the summary names (what shapes a stream): the rules and the
# page read the whole body (``body``) through its request view (app/domain/requests/).
PARAM_KEYS = (
    "stream",
    "stream_options",
    "n",
    "logprobs",
    "top_logprobs",
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "tool_choice",
    "tools",
)


def params_of(body: dict[str, Any]) -> dict[str, Any]:
    """What a request summary names of a posted body's parameters (tools by their count)."""
    return {k: body[k] for k in PARAM_KEYS if k in body and k != "tools"} | (
        {"tools": [{} for _ in body["tools"]]} if isinstance(body.get("tools"), list) else {}
    )


def _method(request: dict[str, Any]) -> str | None:
    method = request.get("method")
    return method if isinstance(method, str) and method else None
