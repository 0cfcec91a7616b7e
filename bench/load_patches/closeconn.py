"""The store keeps (thread, connection) pairs and closes the connections of threads that have
ended whenever it opens a new one (a live run's thread otherwise leaves its SQLite connection,
two fds and its page cache, behind: ``SQLStore._connections`` keeps it)."""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any

from app.storage import sql


def _db(self: Any) -> Any:
    db = getattr(self._local, "db", None)
    if db is None:
        db = self._local.db = self._connect()
        with self._lock:
            keep = []
            for ref, conn in getattr(self, "_pairs", []):
                thread = ref()
                if thread is not None and thread.is_alive():
                    keep.append((ref, conn))
                else:
                    with contextlib.suppress(Exception):
                        conn.close()
            keep.append((weakref.ref(threading.current_thread()), db))
            self._pairs = keep
            self._connections = [conn for _, conn in keep]
    return db


sql.SQLStore._db = _db
