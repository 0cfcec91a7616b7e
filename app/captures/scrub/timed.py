"""Scrubbing a timed capture: read its records exactly as the reader does
(``captures/timed.py`` ``read_records``) and write back only what the reader uses.

The header, response and end records have their secret fields replaced and every string
swept (``scrub_json``): the source URL, the recorded request body. The reads are decoded (from
``base64`` too) and swept together (``sweep_pieces``), so a key cut in two by a read boundary
is found, then written back with their times. Lines the reader skips (not JSON, no usable
``t``, base64 that does not decode, unknown record types, an earlier header) are dropped.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..model import Capture
from ..timed import TimedRecords, read_records, write_records
from .redactions import Redactions, Unscrubbable
from .text import sweep_pieces
from .values import scrub_json


def scrub_timed(data: bytes, redactions: Redactions) -> bytes:
    records = read_records(data, Capture(format="timed"))
    times = [t for t, _ in records.reads]
    pieces = sweep_pieces([chunk for _, chunk in records.reads], redactions) if times else []
    clean = TimedRecords(
        header=_record(records.header, redactions),
        response=_record(records.response, redactions),
        reads=list(zip(times, pieces, strict=True)),
        end=_record(records.end, redactions),
    )
    kept = len(times) + sum(r is not None for r in (clean.header, clean.response, clean.end))
    dropped = sum(1 for line in data.split(b"\n") if line.strip()) - kept
    if dropped:
        redactions["timed records the reader skips, dropped"] += dropped
    try:
        return write_records(clean)
    except (TypeError, orjson.JSONEncodeError) as exc:
        raise Unscrubbable("the timed capture", f"cannot be written back ({exc})") from None


def _record(record: dict[str, Any] | None, redactions: Redactions) -> dict[str, Any] | None:
    return None if record is None else scrub_json(record, redactions)
