"""Everything a stored upload can be seen as, taken through the path uploads take: the
``Importer`` (gunzip, detect, scrub, read, store), then the stored bytes read back as the
server reads them (``Sources.stored``) and every download and page view made from them.

``scrub_findings`` is the scrubber's invariant, shared by the fuzz harness
(``scripts/fuzz_readers.py --target scrub``) and tests/test_fuzz_regressions.py: whatever was
stored, no key-shaped string is left in any view, and scrubbing it again changes nothing."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import orjson

from app.captures import Capture, Limits, read_capture
from app.domain.summary import diagnostic_json, summarize
from app.services.exports import EXPORTS, export
from app.services.uploads import Importer, stream_summaries
from app.storage import CaptureRecord, NewCapture
from app.storage.sqlite import SQLiteStore
from app.web.errors import BadRequest
from app.wire import stream_info


def importer(folder: Path) -> Importer:
    return Importer(SQLiteStore(folder / "streamscope.db"), Limits(), concurrent=1)


class MemoryStore:
    """The two store operations an import and its views use, in memory (for fuzzing)."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def add(self, new: NewCapture) -> tuple[CaptureRecord, str]:
        capture_id = f"c{len(self.data)}"
        self.data[capture_id] = new.data
        record = CaptureRecord(
            id=capture_id,
            title=new.title,
            format=new.format,
            created=time.time(),
            size=len(new.data),
            streams=new.streams,
            sha256=hashlib.sha256(new.data).hexdigest(),
            expires=None,
            delete_hash="",
            redacted=new.redacted,
            compression=new.compression,
        )
        return record, "token"

    def read_bytes(self, capture_id: str) -> bytes:
        return self.data.pop(capture_id)


def memory_importer(limits: Limits | None = None) -> Importer:
    return Importer(MemoryStore(), limits or Limits(), concurrent=1)  # type: ignore[arg-type]


def scrub_findings(imp: Importer, data: bytes, fmt: str | None) -> list[str]:
    """What breaks the scrubber's invariant for this upload: a key-shaped string in a view
    (``key:<view>``), stored bytes that a second scrub would change (``rescrub``), or fewer raw
    events read from what was stored than from what was sent (``lost``: the scrubber removes
    secrets, not data). An upload refused with a clear error breaks nothing."""
    from app.captures.scrub.rules import key_matches
    from app.captures.scrubbing import scrub

    try:
        views = upload_views(imp, data, fmt)
    except BadRequest:
        return []
    found = [
        f"key:{view}"
        for view, blob in views.items()
        if any(unescaped(blob, m.start()) for _, m in key_matches(blob))
    ]
    stored = views["stored"]
    fmt_used = orjson.loads(views["upload answer"])[1]["format"]
    again, redactions = scrub(stored, fmt_used)
    if again != stored or redactions:
        found.append("rescrub")
    if _raw_events(read_capture(stored, fmt_used)) < _raw_events(read_capture(data, fmt_used)):
        found.append("lost")
    return found


def unescaped(blob: bytes, at: int) -> bool:
    """Whether the character at ``at`` is itself, not the letter of an escape: a view written
    as JSON shows the control character 0x08 as ``\\b``, which "earer ..." then follows."""
    slashes = len(blob[:at]) - len(blob[:at].rstrip(b"\\"))
    return slashes % 2 == 0


def _raw_events(capture: Capture) -> int:
    """Raw events read. A redaction may mend broken JSON (``"secret": "\\a"``): an event the
    reader had to split line by line may then read as more events, and a payload whose dialect
    now shows may group the events in fewer streams; neither loses anything."""
    return sum(len(stream.raw) for stream in capture.streams)


def stored_count(folder: Path) -> int:
    with sqlite3.connect(folder / "streamscope.db") as db:
        return db.execute("SELECT COUNT(*) FROM captures").fetchone()[0]


def upload_views(imp: Importer, data: bytes, fmt: str | None = None) -> dict[str, bytes]:
    """Upload ``data``; return each view of what was stored, by name."""
    imported = imp.run(data, title=None, expires=None, fmt=fmt, name=None)
    record = imported.record
    stored = imp.store.read_bytes(record.id)
    capture = read_capture(stored, record.format)
    views = {"stored": stored}
    for kind in EXPORTS:
        views[f"download/{kind}"] = export(kind, stored, capture, record)[0]
    views["upload answer"] = orjson.dumps(
        [stream_summaries(imported.capture, 250.0), record.public()]
    )
    views["page"] = orjson.dumps(  # what the replay messages carry (app/services/replay.py)
        [
            [stream_info(stream), summarize(stream), [event.to_json() for event in stream.events]]
            + [stream.raw_text(i) for i in range(len(stream.raw))]
            for stream in capture.streams
        ]
        + [diagnostic_json(d) for d in capture.diagnostics]
    )
    return views
