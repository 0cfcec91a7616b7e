"""Scrubbing ``curl -i`` output: in the HTTP heads the reader skips (``captures/sse.py``
``http_head``), the value of every secret header (``Set-Cookie``, ``x-api-key``, ...) is
replaced, folded continuation lines included; then the whole text is swept."""

from __future__ import annotations

import re

from ..sse import http_head
from .redactions import REDACTED, Redactions
from .rules import is_secret_header
from .text import sweep

_HEADER = re.compile(
    rb"(?:^|(?<=[\r\n]))([!#$%&'*+.^_`|~0-9A-Za-z\-]+)([ \t]*:[ \t]*)([^\r\n]*)"
    rb"((?:(?:\r\n|\r|\n)[ \t]+[^\r\n]*)*)"
)


def scrub_curl(data: bytes, redactions: Redactions) -> bytes:
    head = http_head(data)
    body_start = len(data) if head is None else head[0]
    return sweep(_scrub_head(data[:body_start], redactions) + data[body_start:], redactions)


def _scrub_head(head: bytes, redactions: Redactions) -> bytes:
    def replace(match: re.Match[bytes]) -> bytes:
        name, sep, value, folded = match.group(1, 2, 3, 4)
        if not is_secret_header(name.decode()) or (value == REDACTED.encode() and not folded):
            return match.group()
        redactions[f"header {name.decode().lower()}"] += 1
        return name + sep + REDACTED.encode()

    return _HEADER.sub(replace, head)
