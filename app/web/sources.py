"""Finding what a page asked to play, read once and shared: parsed captures are read-only,
so sessions share them through a small LRU cache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..captures import Capture, Limits, read_capture
from ..captures.ingest import ingest, with_dialect
from ..demos import find as find_demo
from ..live.recorder import RECORDED_KINDS
from ..storage import CaptureRecord, CaptureStore
from .errors import NotFound


@dataclass
class Loaded:
    key: str
    title: str
    capture: Capture
    info: dict[str, Any]
    version: Any = None  # what the cached copy was read from (stored captures: size, title)
    encoded: Any = None  # its replay messages, once a viewer has encoded them (replay.py)
    documents: dict[bool, Any] = field(default_factory=dict)  # timeline documents (timeline.py)
    recorded_live: bool = False  # a live run's or proxied call's recording (it grows until its end)
    lock: threading.Lock = field(default_factory=threading.Lock)
    document_lock: threading.Lock = field(default_factory=threading.Lock)  # one build (timeline.py)


class CaptureCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, Loaded] = OrderedDict()
        self._loading: dict[str, threading.Lock] = {}  # key -> held while it is being read
        self._lock = threading.Lock()

    def get(self, key: str, load: Callable[[], Loaded]) -> Loaded:
        """The cached copy, or one ``load()``: viewers that open a capture together wait for
        the one parse (outside the cache's lock, so other captures are not held up)."""
        found = self._cached(key)
        if found is not None:
            return found
        with self._lock:
            loading = self._loading.setdefault(key, threading.Lock())
        try:
            with loading:
                found = self._cached(key)
                if found is None:
                    found = load()
                    self.put(key, found)
                return found
        finally:
            with self._lock:
                if self._loading.get(key) is loading:
                    del self._loading[key]

    def _cached(self, key: str) -> Loaded | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: str, loaded: Loaded) -> None:
        with self._lock:
            self._items[key] = loaded
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def drop(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)


class Sources:
    """Resolves ``{"demo": name}`` (and, with storage, ``{"capture": id}``) to a capture."""

    def __init__(self, limits: Limits, cache_size: int, store: CaptureStore | None = None) -> None:
        self.limits = limits
        self.cache = CaptureCache(cache_size)
        self.store = store

    def open(self, source: dict[str, Any]) -> Loaded:
        if isinstance(source.get("demo"), str):
            return self.demo(source["demo"])
        if isinstance(source.get("capture"), str) and self.store is not None:
            return self.stored(source["capture"])
        raise NotFound("no such source: give a demo name or a capture id", code="no_source")

    def demo(self, name: str) -> Loaded:
        demo = find_demo(name)
        if demo is None:
            raise NotFound(f"no demo named {name!r}", code="no_demo")

        def load() -> Loaded:
            capture = read_capture(demo.read_bytes(), None, self.limits)
            info = {"kind": "demo", "name": demo.name, "description": demo.description}
            return Loaded(f"demo:{name}", demo.title, capture, info)

        return self.cache.get(f"demo:{name}", load)

    def stored(self, capture_id: str) -> Loaded:
        store = self.store
        record = store.get(capture_id) if store is not None else None
        if store is None or record is None:
            raise NotFound(
                "no such capture (deleted, expired, or never uploaded)", code="no_capture"
            )

        version = _version(record)

        def load() -> Loaded:
            limits = with_dialect(self.limits, record.dialect)
            data = store.read_bytes(capture_id)
            return self._loaded(record, ingest(data, record.format, limits, store=False).capture)

        key = f"capture:{capture_id}"
        loaded = self.cache.get(key, load)
        if loaded.version != version:  # changed since it was cached (here or in another worker)
            self.cache.drop(key)
            loaded = self.cache.get(key, load)
        return loaded

    def remember(self, record: CaptureRecord, capture: Capture) -> None:
        """A capture just read on its way in (an upload, a finished recording): cached as the
        stored bytes would read, so its first open does not read it again."""
        self.cache.put(f"capture:{record.id}", self._loaded(record, capture))

    @staticmethod
    def _loaded(record: CaptureRecord, capture: Capture) -> Loaded:
        info = {"kind": "capture", "id": record.id, "redacted": record.redacted}
        return Loaded(
            f"capture:{record.id}",
            record.title,
            capture,
            info,
            _version(record),
            recorded_live=record.source in RECORDED_KINDS,
        )


def _version(record: CaptureRecord) -> tuple[int, str]:
    """What a cached copy was read from: a recording still growing, a renamed capture."""
    return (record.size, record.title)
