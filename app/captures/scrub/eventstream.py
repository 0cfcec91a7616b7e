"""Scrubbing AWS event-stream frames (Bedrock): every payload and string header value swept,
each changed frame written again with its new lengths and CRCs (``captures/eventstream.py``
``reframe``, which reads the frames as the reader does)."""

from __future__ import annotations

from ..eventstream import reframe
from .redactions import Redactions
from .text import sweep


def scrub_eventstream(data: bytes, redactions: Redactions) -> bytes:
    return reframe(data, lambda piece: sweep(piece, redactions))
