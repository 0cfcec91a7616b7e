"""Download kinds offered for a stored capture."""

from __future__ import annotations

from ..captures import Capture
from ..captures.export import to_jsonl, to_sse, to_timed
from ..storage import CaptureRecord

EXPORTS = ("original", "timed", "jsonl", "sse")
SUFFIX = {
    "sse": ".sse",
    "docs": ".txt",
    "jsonl": ".jsonl",
    "json": ".json",
    "har": ".har",
    "curl": ".txt",
    "timed": ".timed.jsonl",
}


def export(
    kind: str, original: bytes, capture: Capture, record: CaptureRecord
) -> tuple[bytes, str]:
    if kind == "original":
        return original, SUFFIX.get(record.format, ".txt")
    if kind == "timed":
        return to_timed(
            capture, original, source={"capture": record.id, "format": record.format}
        ), ".timed.jsonl"
    if kind == "jsonl":
        return to_jsonl(capture), ".chunks.jsonl"
    return to_sse(capture), ".sse"
