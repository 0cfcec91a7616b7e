"""Everything a stored upload can be seen as, taken through the path uploads take: the
``Importer`` (gunzip, detect, scrub, read, store), then the stored bytes read back as the
server reads them (``Sources.stored``) and every download and page view made from them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson

from app.captures import Limits, read_capture
from app.domain.summary import diagnostic_json, summarize
from app.storage.sqlite import SQLiteStore
from app.web.exports import EXPORTS, export
from app.web.replay import stream_info
from app.web.uploads import Importer, stream_summaries


def importer(folder: Path) -> Importer:
    return Importer(SQLiteStore(folder / "streamscope.db"), Limits(), concurrent=1)


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
    views["page"] = orjson.dumps(  # what the replay messages carry (app/web/replay.py)
        [
            [stream_info(stream), summarize(stream), [event.to_json() for event in stream.events]]
            + [stream.raw_text(i) for i in range(len(stream.raw))]
            for stream in capture.streams
        ]
        + [diagnostic_json(d) for d in capture.diagnostics]
    )
    return views
