"""Reading an upstream's answers: Retry-After, error bodies, HTML pages, connection errors in
plain words.

An HTML answer (a proxy's error page, a login page) is named by its title, never pasted into a
message: ``HTTP 503 from upstream: an HTML page titled 'Service Unavailable', not a stream``.
"""

from __future__ import annotations

import email.utils
import html
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..digits import whole_number

ERROR_BODY_CAP = 4096
TITLE_CAP = 200
TITLE_SEARCH = 64 * 1024  # where a page's title can be
TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.I | re.S)


def is_html(content_type: str, body: bytes) -> bool:
    kind = content_type.lower()
    if "text/html" in kind or "application/xhtml" in kind:
        return True
    start = body[:512].lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html"))


def html_title(body: bytes) -> str | None:
    found = TITLE.search(body[:TITLE_SEARCH])
    if found is None:
        return None
    text = " ".join(html.unescape(found[1].decode(errors="replace")).split())
    return text[:TITLE_CAP] or None


def html_page(title: str | None) -> str:
    return f"an HTML page titled {title!r}" if title else "an HTML page"


@dataclass
class Answer:
    """What an upstream answered, for an error message: its status, content type, the HTML
    title if it is a page, and at most 4 KiB of its body as text. Redact before showing."""

    status: int
    content_type: str
    body: bytes

    @property
    def html(self) -> bool:
        return is_html(self.content_type, self.body)

    @property
    def title(self) -> str | None:
        return html_title(self.body) if self.html else None

    def what(self, instead_of: str) -> str:
        """``an HTML page titled 'X', not <instead_of>``, or the upstream's own message."""
        if self.html:
            return f"{html_page(self.title)}, not {instead_of}"
        return error_message(self.body[:ERROR_BODY_CAP])

    def to_json(self, redact: Any) -> dict[str, Any]:
        title = self.title
        return {
            "status": self.status,
            "content_type": self.content_type,
            "title": redact(title) if title else None,
            "body": redact(self.body[:ERROR_BODY_CAP].decode(errors="replace")),
        }


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    seconds = whole_number(value)
    if seconds is not None:
        return float(seconds)
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
