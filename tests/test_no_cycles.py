"""A capture is freed as soon as the last reference to it goes (app/domain/collector.py): no
reference cycle holds a stream, its timeline or what read it. ``inspect`` pauses the collector
on that promise; a cycle would keep a whole stream alive until a collection found it."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from app.captures import read_capture
from app.report import render, write_json

CAPTURES = Path(__file__).resolve().parent / "captures"
FILES = sorted(
    p
    for p in [*CAPTURES.iterdir(), *(CAPTURES / "dialects").iterdir()]
    if p.is_file() and p.suffix != ".md"
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_read_and_reported_capture_is_freed_with_its_last_reference(path: Path) -> None:
    enabled = gc.isenabled()
    gc.disable()  # only reference counts free anything below
    try:
        capture = read_capture(path.read_bytes())
        write_json(capture, lambda piece: None)
        render(capture, path.name)
        held = [weakref.ref(capture), *(weakref.ref(stream) for stream in capture.streams)]
        del capture
        assert [ref() for ref in held] == [None] * len(held)
    finally:
        if enabled:
            gc.enable()
