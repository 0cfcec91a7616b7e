"""Download kinds offered for a stored capture."""

from __future__ import annotations

from ..captures import Capture, format_named
from ..captures.export import to_jsonl, to_sse, to_timed
from ..storage import CaptureRecord

EXPORTS = ("original", "timed", "jsonl", "sse")
SUFFIXES = {"timed": ".timed.jsonl", "jsonl": ".chunks.jsonl", "sse": ".sse"}


def suffix_of(kind: str, record: CaptureRecord) -> str:
    """The file name's ending of a download."""
    if kind == "original":
        found = format_named(record.format)
        return found.suffix if found is not None else ".txt"
    return SUFFIXES[kind]


def export(
    kind: str, original: bytes, capture: Capture, record: CaptureRecord
) -> tuple[bytes, str]:
    suffix = suffix_of(kind, record)
    if kind == "original":
        return original, suffix
    if kind == "timed":
        return to_timed(
            capture, original, source={"capture": record.id, "format": record.format}
        ), suffix
    if kind == "jsonl":
        return to_jsonl(capture), suffix
    return to_sse(capture), suffix
