"""Scrubbing ``curl -i`` output: in the HTTP heads the reader skips (``captures/sse.py``
``http_head``), the value of every secret header (``Set-Cookie``, ``x-api-key``, ...) is
replaced, folded continuation lines included; then the whole text is swept. In ``curl
--trace-ascii`` output each block (``=> Send header, N bytes``...) is swept as the bytes it
stands for, so a key cut over two of its 64-byte lines is found, and written again with its
offsets and size counted anew (``captures/curlv.py`` reads it back the same way)."""

from __future__ import annotations

import re

from .. import curlv
from ..sse import http_head
from .redactions import REDACTED, Redactions
from .rules import is_secret_header
from .text import sweep

_HEADER = re.compile(
    rb"(?:^|(?<=[\r\n]))([!#$%&'*+.^_`|~0-9A-Za-z\-]+)([ \t]*:[ \t]*)([^\r\n]*)"
    rb"((?:(?:\r\n|\r|\n)[ \t]+[^\r\n]*)*)"
)


_BLOCK = re.compile(
    rb"(?m)^((?:=> Send|<= Recv) [a-zA-Z ]+, )(\d+) bytes(?: \(0x[0-9a-f]+\))?(\r?\n)"
    rb"((?:[0-9a-f]{4,8}: [^\r\n]*(?:\r?\n|\Z))*)"
)
_LINE = re.compile(rb"[0-9a-f]{4,8}: [^\r\n]*(?:\r?\n)?")


def scrub_curl(data: bytes, redactions: Redactions) -> bytes:
    if curlv.kind(data.lstrip()) == "trace":
        data = _BLOCK.sub(lambda match: _scrub_block(match, redactions), data)
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


def _scrub_block(match: re.Match[bytes], redactions: Redactions) -> bytes:
    title, size, eol, body = match.group(1, 2, 3, 4)
    lines = [m.group() for m in _LINE.finditer(body)]
    raw = curlv.untrace([line.rstrip(b"\r\n") for line in lines], int(size))
    clean = sweep(raw, redactions)
    if clean == raw:
        return match.group()
    out, offset = [], 0
    segments = clean.split(b"\r\n")
    for index, segment in enumerate(segments):
        if index == len(segments) - 1 and not segment and index:
            break  # the block ended at a CRLF: the size says so
        cuts = [
            segment[i : i + curlv.TRACE_WIDTH] for i in range(0, len(segment), curlv.TRACE_WIDTH)
        ] or [b""]
        for cut in cuts:
            out.append(b"%04x: " % offset + cut + eol)
            offset += len(cut)
        offset += 2 if index < len(segments) - 1 else 0
    return title + b"%d bytes (0x%x)" % (len(clean), len(clean)) + eol + b"".join(out)
