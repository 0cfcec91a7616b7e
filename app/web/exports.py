"""Download kinds offered for a stored capture."""

from __future__ import annotations

from ..captures import Capture, format_named
from ..captures.export import to_jsonl, to_sse, to_timed
from ..storage import CaptureRecord

EXPORTS = ("original", "timed", "jsonl", "sse")


def export(
    kind: str, original: bytes, capture: Capture, record: CaptureRecord
) -> tuple[bytes, str]:
    if kind == "original":
        found = format_named(record.format)
        return original, found.suffix if found is not None else ".txt"
    if kind == "timed":
        return to_timed(
            capture, original, source={"capture": record.id, "format": record.format}
        ), ".timed.jsonl"
    if kind == "jsonl":
        return to_jsonl(capture), ".chunks.jsonl"
    return to_sse(capture), ".sse"
