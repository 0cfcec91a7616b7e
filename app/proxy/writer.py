"""The store's writes for every proxied call, on one thread, in the order they were asked
(docs/proxy.md, "What it costs").

A call's thread relays each read and then records it; if it also waited for the store (SQLite's
write lock, a PostgreSQL round trip) the app's next read would wait too, for as long as the
store likes (a large upload's import holds SQLite's lock for seconds). So a recording's
appends, its end and what follows it are handed here, and done in turn, each in its own
transaction as before. What is queued is bounded by the recordings' size cap
(``STREAMSCOPE_MAX_LIVE_MB``) and the calls the server admits at once.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger("streamscope.proxy")
Task = Callable[[], None]
IDLE_S = 10.0  # the thread ends after this long with nothing to do


class StoreWriter:
    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[Task] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __call__(self, task: Task) -> None:
        """Do ``task`` after every task handed in before it."""
        with self._lock:
            self._tasks.put(task)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="proxy-store", daemon=True)
                self._thread.start()

    def wait(self, timeout: float = 10.0) -> bool:
        """Until everything handed in so far is done (tests, and a clean stop)."""
        done = threading.Event()
        self(done.set)
        return done.wait(timeout)

    def _run(self) -> None:
        while True:
            try:
                task = self._tasks.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._tasks.empty():
                        self._thread = None
                        return
                continue
            try:
                task()
            except Exception:
                log.exception("a proxied call's recording could not be written; the call went on")
