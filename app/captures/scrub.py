"""Removing secrets from a capture before anything is stored (SECURITY.md, "Secrets").

* HAR files keep only what the player needs: the event-stream entries, and of their requests
  the method, the URL (without secret-looking query parameters or user-info) and the body; of
  their responses the status, the content type and the content. Cookies and every other header
  are dropped, so ``Authorization``, ``Proxy-Authorization``, ``api-key``, ``x-api-key``,
  ``x-goog-api-key``, ``Cookie`` and ``Set-Cookie`` go in any letter case.
* Every format is then swept for key-shaped strings (``sk-...``, ``sk-proj-...``,
  ``sk-ant-...``, ``AIza...``, JWTs, ``Bearer ...``), replaced with ``[redacted]``. The
  replacement holds no quote or backslash, so JSON stays JSON.

``Redactions`` counts what was removed, by kind, so the upload answer and the page can say so.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import orjson

from .eventstream import reframe

REDACTED = "[redacted]"
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
    }
)
SECRET_PARAMS = frozenset(
    {"key", "api_key", "apikey", "access_token", "token", "sig", "code", "signature"}
)
KEY_PATTERNS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    ("bearer token", re.compile(rb"(?i)\bBearer\s+[A-Za-z0-9._~+/=\-]{8,}")),
    ("anthropic key", re.compile(rb"\bsk-ant-[A-Za-z0-9_\-]{8,}")),
    ("openai project key", re.compile(rb"\bsk-proj-[A-Za-z0-9_\-]{8,}")),
    ("api key (sk-)", re.compile(rb"\bsk-[A-Za-z0-9_\-]{16,}")),
    ("google api key", re.compile(rb"\bAIza[0-9A-Za-z_\-]{30,}")),
    ("jwt", re.compile(rb"\beyJ[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}")),
)


class Redactions(Counter[str]):
    def as_list(self) -> list[dict[str, Any]]:
        return [{"kind": kind, "count": count} for kind, count in sorted(self.items())]


def sweep(data: bytes, redactions: Redactions) -> bytes:
    """Replace key-shaped strings anywhere in the bytes."""
    for kind, pattern in KEY_PATTERNS:
        data, count = pattern.subn(REDACTED.encode(), data)
        if count:
            redactions[kind] += count
    return data


def scrub(data: bytes, fmt: str | None) -> tuple[bytes, Redactions]:
    redactions = Redactions()
    if fmt == "har":
        data = scrub_har(data, redactions)
    if fmt == "eventstream":  # frames are written again with their new lengths and CRCs
        return reframe(data, lambda piece: sweep(piece, redactions)), redactions
    return sweep(data, redactions), redactions


def scrub_url(url: str, redactions: Redactions) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        redactions["unreadable URL"] += 1
        return "?"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = netloc.rpartition("@")[2]
        redactions["url credentials"] += 1
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name.lower() in SECRET_PARAMS:
            redactions[f"query parameter {name.lower()}"] += 1
            value = REDACTED
        query.append((name, value))
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), ""))


def scrub_har(data: bytes, redactions: Redactions) -> bytes:
    try:
        har = orjson.loads(data)
    except orjson.JSONDecodeError:
        return data  # not readable as HAR: the key sweep still runs over it
    log = har.get("log") if isinstance(har, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        return data
    kept = []
    for entry in entries:
        if isinstance(entry, dict) and _is_stream(entry):
            kept.append(_scrub_entry(entry, redactions))
        else:
            redactions["non-stream HAR entries dropped"] += 1
    log = har["log"]
    clean = {
        "log": {
            "version": log.get("version", "1.2"),
            "creator": log.get("creator"),
            "entries": kept,
        }
    }
    return orjson.dumps(clean, option=orjson.OPT_INDENT_2)


def _is_stream(entry: dict[str, Any]) -> bool:
    content = (entry.get("response") or {}).get("content") or {}
    if "event-stream" in str(content.get("mimeType", "")).lower():
        return True
    text = content.get("text")
    if not isinstance(text, str):
        return False
    if content.get("encoding") == "base64":
        try:
            text = base64.b64decode(text[:200] + "=" * (-len(text[:200]) % 4)).decode(
                errors="replace"
            )
        except (binascii.Error, ValueError):
            return False
    return text.lstrip().startswith(("data:", ":", "event:"))


def _count_headers(message: dict[str, Any], redactions: Redactions) -> None:
    headers, cookies = message.get("headers"), message.get("cookies")
    for header in headers if isinstance(headers, list) else []:
        name = str(header.get("name", "")).lower() if isinstance(header, dict) else ""
        if name in SECRET_HEADERS:
            redactions[f"header {name}"] += 1
    for cookie in cookies if isinstance(cookies, list) else []:
        redactions["cookies"] += 1 if cookie else 0


def _scrub_entry(entry: dict[str, Any], redactions: Redactions) -> dict[str, Any]:
    request = entry.get("request") if isinstance(entry.get("request"), dict) else {}
    response = entry.get("response") if isinstance(entry.get("response"), dict) else {}
    _count_headers(request, redactions)
    _count_headers(response, redactions)
    clean_request: dict[str, Any] = {
        "method": request.get("method"),
        "url": scrub_url(str(request.get("url", "")), redactions),
        "headers": [],
    }
    post = request.get("postData")
    if isinstance(post, dict):
        clean_request["postData"] = {"mimeType": post.get("mimeType"), "text": post.get("text")}
    content = dict(response.get("content")) if isinstance(response.get("content"), dict) else {}
    if content.get("encoding") == "base64" and isinstance(content.get("text"), str):
        # Decoded so that the key sweep sees the body (a stream body is UTF-8 text).
        try:
            content["text"] = base64.b64decode(content["text"]).decode()
            del content["encoding"]
        except (binascii.Error, ValueError):
            pass
    clean_response = {
        "status": response.get("status"),
        "headers": [],
        "content": {
            key: content[key] for key in ("mimeType", "size", "text", "encoding") if key in content
        },
    }
    return {
        "startedDateTime": entry.get("startedDateTime"),
        "time": entry.get("time"),
        "request": clean_request,
        "response": clean_response,
        "timings": entry.get("timings"),
    }
