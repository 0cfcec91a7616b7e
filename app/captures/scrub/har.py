"""Scrubbing a HAR file: read it exactly as the reader does (``captures/har.py``: strict JSON,
else the lenient decoder), keep what the player needs, and write it back as strict JSON.

Kept, of each event-stream entry: the method, the URL (``scrub_url``), the request body when
it is JSON (``scrub_json``) or a form (``scrub_form``), the status, the media type, the body
(decoded from base64 and swept; base64 again only if it is not UTF-8), the start time and the
timings. Dropped: every header and cookie, other entries, other fields. A file the reader
cannot read is refused (``Unscrubbable``), never stored as it came.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import orjson

from ...domain.jsontext import decode_document
from ..har import NOT_A_HAR, har_entries, stream_body, stream_mime
from ..model import Capture
from .redactions import Redactions, Unscrubbable
from .rules import is_secret_header
from .text import sweep, sweep_str
from .values import scrub_form, scrub_json, scrub_url

# Anchored and possessive (no part can give back what the next needs): linear wherever it is
# tried (docs/security.md, "Scrubbing in linear time").
_FORM = re.compile(r"\A[^=&\s]++=[^&\s]*+(?:&[^=&\s]++=[^&\s]*+)*+\Z")


def scrub_har(data: bytes, redactions: Redactions) -> bytes:
    decoded = decode_document(data)
    if not decoded.ok:
        why = decoded.problems[-1].message if decoded.problems else "not JSON"
        raise Unscrubbable("the HAR file", why)
    entries = har_entries(decoded.value)
    if entries is None:
        raise Unscrubbable("the HAR file", NOT_A_HAR)
    kept: list[dict[str, Any]] = []
    scratch = Capture(format="har")  # the reader's notes; the reader says them again later
    for number, entry in enumerate(entries, start=1):
        body = stream_body(entry, number, scratch) if isinstance(entry, dict) else None
        if body is None:
            # Dropped, its place kept (an empty entry, which no reader takes for a stream), so
            # the entries keep the numbers they have in the uploaded file ("HAR entry 2").
            redactions["non-stream HAR entries dropped"] += 1
            kept.append({})
            continue
        kept.append(_entry(entry, body, redactions))
    log = decoded.value["log"]
    clean = {
        "log": {
            "version": sweep_str(log["version"], redactions)
            if isinstance(log.get("version"), str)
            else "1.2",
            "creator": _creator(log.get("creator"), redactions),
            "entries": kept,
        }
    }
    try:
        return orjson.dumps(clean, option=orjson.OPT_INDENT_2)
    except (TypeError, orjson.JSONEncodeError) as exc:
        raise Unscrubbable("the HAR file", f"cannot be written back as JSON ({exc})") from None


def _entry(entry: dict[str, Any], body: bytes, redactions: Redactions) -> dict[str, Any]:
    request = _dict(entry.get("request"))
    response = _dict(entry.get("response"))
    _count_dropped(request, redactions)
    _count_dropped(response, redactions)
    url = request.get("url")
    clean_request: dict[str, Any] = {
        "method": _text(request.get("method"), redactions),
        "url": scrub_url(url, redactions) if isinstance(url, str) else None,
        "headers": [],
    }
    post = _post_data(request.get("postData"), redactions)
    if post is not None:
        clean_request["postData"] = post
    return {
        "startedDateTime": _text(entry.get("startedDateTime"), redactions),
        "time": _number(entry.get("time")),
        "request": clean_request,
        "response": {
            "status": _number(response.get("status")),
            "headers": [],
            "content": _content(stream_mime(response), body, redactions),
        },
        "timings": _timings(entry.get("timings"), redactions),
    }


def _content(mime: str, body: bytes, redactions: Redactions) -> dict[str, Any]:
    clean = sweep(body, redactions)
    content: dict[str, Any] = {"mimeType": sweep_str(mime, redactions)}
    try:
        content["text"] = clean.decode()
    except UnicodeDecodeError:
        content["encoding"] = "base64"
        content["text"] = base64.b64encode(clean).decode()
    return content


def _post_data(post: Any, redactions: Redactions) -> dict[str, Any] | None:
    if not isinstance(post, dict):
        return None
    if post.get("params"):
        redactions["request form params dropped"] += 1
    mime = str(post.get("mimeType") or "")
    clean: dict[str, Any] = {"mimeType": sweep_str(mime, redactions)}
    text = post.get("text")
    if not isinstance(text, str) or not text.strip():
        return clean
    decoded = decode_document(text.encode("utf-8", "surrogatepass"))
    if decoded.ok:
        clean["text"] = orjson.dumps(scrub_json(decoded.value, redactions)).decode()
    elif "x-www-form-urlencoded" in mime.lower() or _FORM.fullmatch(text.strip()):
        clean["text"] = scrub_form(text, redactions)
    else:
        redactions["request body dropped (neither JSON nor a form)"] += 1
    return clean


def _count_dropped(message: dict[str, Any], redactions: Redactions) -> None:
    headers, cookies = message.get("headers"), message.get("cookies")
    for header in headers if isinstance(headers, list) else []:
        name = str(header.get("name", "")) if isinstance(header, dict) else ""
        if is_secret_header(name):
            redactions[f"header {name.lower()}"] += 1
    for cookie in cookies if isinstance(cookies, list) else []:
        redactions["cookies"] += 1 if cookie else 0


def _creator(creator: Any, redactions: Redactions) -> dict[str, str] | None:
    if not isinstance(creator, dict):
        return None
    return {
        key: sweep_str(creator[key], redactions)
        for key in ("name", "version")
        if isinstance(creator.get(key), str)
    }


def _timings(timings: Any, redactions: Redactions) -> dict[str, float] | None:
    if not isinstance(timings, dict):
        return None
    return {
        sweep_str(key, redactions): value
        for key, value in timings.items()
        if _number(value) is not None
    }


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any, redactions: Redactions) -> str | None:
    return sweep_str(value, redactions) if isinstance(value, str) else None


def _number(value: Any) -> float | int | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
