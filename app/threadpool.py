"""A thread pool that gives idle threads back.

gunicorn's gthread worker runs each connection on a ``concurrent.futures.ThreadPoolExecutor``,
which starts threads on demand but never ends one: after a class of 200 has left, the worker
keeps 200 idle threads (and their stacks) for the rest of its life. ``ElasticThreadPool`` has
the same ``submit``/``shutdown`` surface, starts a thread only when no idle one is waiting, and
lets a thread that has had nothing to do for ``idle_timeout`` seconds end.

Bookkeeping, all under one lock: ``pending`` counts queued items not yet taken, ``waiting``
the threads waiting for one (a thread being started counts as waiting). ``submit`` starts a
thread when ``pending > waiting`` (up to ``max_workers``), so no item waits while a thread
could take it. A thread that times out looks at the queue once more under the lock before it
ends, so none ends while an item is queued. (A thread that has taken an item but not yet
updated the counts is still in both, which leaves ``pending - waiting`` right.)
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

Work = tuple[Future, Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class ElasticThreadPool:
    def __init__(self, max_workers: int, idle_timeout: float = 10.0, name: str = "pool") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self.max_workers = max_workers
        self.idle_timeout = idle_timeout
        self.name = name
        self._queue: queue.SimpleQueue[Work | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._pending = 0
        self._waiting = 0
        self._started = 0
        self._shutdown = False

    @property
    def threads(self) -> int:
        with self._lock:
            return self._threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit after shutdown")
            self._queue.put((future, fn, args, kwargs))
            self._pending += 1
            if self._pending > self._waiting and self._threads < self.max_workers:
                self._start_thread()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            workers = self._threads
        if cancel_futures:
            self._cancel_queued()
        for _ in range(workers):
            self._queue.put(None)  # wakes each waiting thread to end
        if wait:
            for thread in [t for t in threading.enumerate() if t.name.startswith(self._prefix)]:
                thread.join()

    @property
    def _prefix(self) -> str:
        return f"{self.name}-{id(self):x}-"

    def _start_thread(self) -> None:
        """Start one worker thread (waiting from the start); the caller holds the lock."""
        self._threads += 1
        self._waiting += 1
        self._started += 1
        threading.Thread(
            target=self._work, name=f"{self._prefix}{self._started}", daemon=True
        ).start()

    def _work(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # handed to the future, as executors do
                    future.set_exception(exc)
            del item, future, fn, args, kwargs  # drop references while idle
            with self._lock:
                self._waiting += 1

    def _next(self) -> Work | None:
        """The next item, or None when this thread should end (idle too long, or shutdown)."""
        try:
            item = self._queue.get(timeout=self.idle_timeout)
        except queue.Empty:
            with self._lock:  # one last look: an item queued just as we timed out
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    item = None
                return self._took(item)
        with self._lock:
            return self._took(item)

    def _took(self, item: Work | None) -> Work | None:
        """The counts after this thread took ``item`` (None: it ends); the caller holds the lock."""
        self._waiting -= 1
        if item is None:
            self._threads -= 1
        else:
            self._pending -= 1
        return item

    def _cancel_queued(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                item[0].cancel()
