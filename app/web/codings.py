"""Content codings for documents built once and served many times (the timeline document,
docs/protocol.md "The timeline document"): brotli and gzip, chosen by the request's
``Accept-Encoding``, each form compressed once, a piece at a time, and kept with its
document in the results (results.py).

Brotli at quality 6 is about as fast as gzip at level 6 and some 15% smaller on a timeline;
the higher qualities cost seconds on a large capture, paid by the first viewer.
"""

from __future__ import annotations

import gzip
from typing import IO

import brotli
from werkzeug.datastructures import Accept

from ..services.results import Out

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


PIECE = 1 << 20  # bytes compressed at a time


def compress_stream(source: IO[bytes], coding: str, out: Out) -> None:
    """``source`` compressed into ``out`` a piece at a time (never whole in memory)."""
    if coding == "gzip":
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=GZIP_LEVEL, mtime=0) as packer:  # type: ignore[call-overload]
            while piece := source.read(PIECE):
                packer.write(piece)
        return
    if coding != "br":
        raise ValueError(f"no content coding {coding!r}")
    compressor = brotli.Compressor(quality=BROTLI_QUALITY)
    while piece := source.read(PIECE):
        out.write(compressor.process(piece))
    out.write(compressor.finish())


def negotiate(accepted: Accept) -> str | None:
    """The coding to send: the accepted one of highest quality (brotli on a tie), or None
    (the document as it is) when the client accepts neither."""
    best, quality = None, 0.0
    for coding in CODINGS:
        q = accepted[coding]
        if q > quality:
            best, quality = coding, q
    return best
