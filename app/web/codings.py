"""Content codings for documents built once and served many times (the timeline document,
docs/protocol.md "The timeline document"): brotli and gzip, chosen by the request's
``Accept-Encoding``, each form compressed once and kept with its document.

Brotli at quality 6 is about as fast as gzip at level 6 and some 15% smaller on a timeline;
the higher qualities cost seconds on a large capture, paid by the first viewer.
"""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass, field

import brotli
from werkzeug.datastructures import Accept

GZIP_LEVEL = 6
BROTLI_QUALITY = 6
CODINGS = ("br", "gzip")  # preferred first when a client accepts both equally
SUFFIX = {"br": ".br", "gzip": ".gz"}  # of a form's strong ETag (RFC 9110 section 8.8.3.3)


def compress(body: bytes, coding: str) -> bytes:
    if coding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    if coding == "br":
        packed: bytes = brotli.compress(body, quality=BROTLI_QUALITY)
        return packed
    raise ValueError(f"no content coding {coding!r}")


def negotiate(accepted: Accept) -> str | None:
    """The coding to send: the accepted one of highest quality (brotli on a tie), or None
    (the document as it is) when the client accepts neither."""
    best, quality = None, 0.0
    for coding in CODINGS:
        q = accepted[coding]
        if q > quality:
            best, quality = coding, q
    return best


@dataclass
class Forms:
    """A body and its compressed forms, each made on first demand and only once: concurrent
    first requests for a form wait for the one that compresses it."""

    body: bytes
    _forms: dict[str, bytes] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, coding: str | None) -> bytes:
        if coding is None:
            return self.body
        with self._lock:
            found = self._forms.get(coding)
            if found is None:
                found = self._forms[coding] = compress(self.body, coding)
            return found
