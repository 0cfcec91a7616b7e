"""The cyclic garbage collector paused while a whole capture is read.

A timeline is acyclic (events are ``gc=False`` structures; a choice reader points back at its
interpreter through a weak proxy), but some dialects keep a container per chunk in it (Gemini
sends its usage counters, a dict holding a list of dicts, with every chunk, and each change is
a ``Usage`` event). Every collection the growing timeline sets off walks all of them again:
on a 100k-chunk Gemini capture that was a third of the reading time (docs/performance.md).
Nothing built while reading can be a cycle, so collecting meanwhile frees nothing; the pause
ends with the read, and nested or concurrent reads (server threads) share one pause.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_readers = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """No automatic collection while the block runs (nor while another paused block does);
    the collector is as it was once the last one ends."""
    global _readers, _was_enabled
    with _lock:
        if _readers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0 and _was_enabled:
                gc.enable()
