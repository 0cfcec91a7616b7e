"""Scrubbing decoded values: a URL, a form-encoded body, a JSON value from a request.

Each applies the rules (``rules.py``) by structure, then the sweep (``text.py``) to what is
left, so the same rules hold for a value whatever format carried it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from .redactions import REDACTED, Redactions
from .rules import is_secret_field, is_secret_param
from .text import sweep_str


def scrub_url(url: str, redactions: Redactions) -> str:
    """The URL without user-info or fragment, its secret query parameters replaced; an
    unreadable URL (``http://[``) becomes ``""``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        redactions["unreadable URL"] += 1
        return ""
    netloc = parts.netloc
    if "@" in netloc:
        netloc = netloc.rpartition("@")[2]
        redactions["url credentials"] += 1
    return sweep_str(urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), redactions)


def scrub_form(body: str, redactions: Redactions) -> str:
    """An ``application/x-www-form-urlencoded`` body with secret parameters replaced."""
    pairs = []
    for pair in body.split("&"):
        name, sep, value = pair.partition("=")
        decoded = unquote_plus(name)
        if sep and value != REDACTED and is_secret_param(decoded):
            redactions[f"form parameter {decoded.lower()}"] += 1
            pair = f"{name}={REDACTED}"
        pairs.append(pair)
    return sweep_str("&".join(pairs), redactions)


def scrub_json(value: Any, redactions: Redactions) -> Any:
    """A JSON value from a request (a body, a timed capture's header): the values of secret
    fields replaced (scalars, and the scalars of a list), every string and key swept. Values
    come from a JSON reader that refuses nesting past 200 levels, so recursion is bounded."""
    if isinstance(value, str):
        return sweep_str(value, redactions)
    if isinstance(value, list):
        return [scrub_json(item, redactions) for item in value]
    if not isinstance(value, dict):
        return value
    pair_name = value.get("name")
    secret_pair = isinstance(pair_name, str) and is_secret_field(pair_name)
    out = {}
    for key, item in value.items():
        if is_secret_field(key) or (secret_pair and key == "value"):
            item = _redact(item, key if key != "value" else str(pair_name), redactions)
        out[sweep_str(key, redactions)] = scrub_json(item, redactions)
    return out


def _redact(value: Any, name: str, redactions: Redactions) -> Any:
    if isinstance(value, list):
        return [_redact(item, name, redactions) for item in value]
    if isinstance(value, bool) or value is None or value == REDACTED:
        return value
    if isinstance(value, (str, int, float)):
        redactions[f"field {name.lower()}"] += 1
        return REDACTED
    return value
