"""Reading an upstream's answers: Retry-After, error bodies, connection errors in plain words."""

from __future__ import annotations

import email.utils
import time
from urllib.parse import urlsplit

import orjson

ERROR_BODY_CAP = 4096


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_message(body: bytes) -> str:
    """The upstream's own message when it sent a JSON error, else the body as text (cut)."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        text = body.decode(errors="replace").strip()
        return text[:ERROR_BODY_CAP] or "(empty body)"
    error = value.get("error", value) if isinstance(value, dict) else value
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return body.decode(errors="replace")[:ERROR_BODY_CAP]


def describe_connect_error(exc: Exception, url: str) -> str:
    text = str(exc)
    cause = exc.__cause__ or exc.__context__
    where = urlsplit(url).netloc
    if (
        "CERTIFICATE" in text.upper()
        or "SSL" in text.upper()
        or (cause and "SSL" in type(cause).__name__)
    ):
        return f"TLS error talking to {where}: {text}"
    if "refused" in text.lower():
        return f"connection refused by {where}"
    if "Name or service not known" in text or "nodename" in text:
        return f"DNS failure: cannot resolve {where}"
    return f"could not connect to {where}: {text}"
