"""Finding what a page asked to play, read once and shared: parsed captures are read-only,
so sessions share them through an LRU cache bounded by bytes (``STREAMSCOPE_CAPTURE_CACHE_MB``:
a capture's parsed timeline, about 1.5 times its size, and its encoded replay messages, as
viewers encode them; docs/security.md, "Heavy GETs"). The newest capture is kept whatever its
size, so a class opening one large capture reads it once."""

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
    summaries: Any = None  # its streams' summaries, once asked for (uploads.py)
    findings: Any = None  # its streams' findings, once asked for (findings.py)
    recorded_live: bool = False  # a live run's or proxied call's recording (it grows until its end)
    size: int = 0  # bytes it was read from
    lock: threading.Lock = field(default_factory=threading.Lock)

    def weight(self) -> int:
        """About what it holds in memory: the parsed capture and the messages encoded so far."""
        encoded = self.encoded.weight() if self.encoded is not None else 0
        return int(self.size * PARSED) + encoded


PARSED = 1.5  # a parsed capture's memory per byte read (1.2 to 1.3 measured with tracemalloc)


class CaptureCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
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
        self.trim()

    def trim(self) -> None:
        """Drop the least recently used captures until the rest fit (the newest stays)."""
        with self._lock:
            weights = {key: item.weight() for key, item in self._items.items()}
            total = sum(weights.values())
            while total > self.max_bytes and len(self._items) > 1:
                key, _ = self._items.popitem(last=False)
                total -= weights[key]

    def weight(self) -> int:
        with self._lock:
            return sum(item.weight() for item in self._items.values())

    def drop(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)


class Sources:
    """Resolves ``{"demo": name}`` (and, with storage, ``{"capture": id}``) to a capture."""

    def __init__(self, limits: Limits, cache_bytes: int, store: CaptureStore | None = None) -> None:
        self.limits = limits
        self.cache = CaptureCache(cache_bytes)
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
            data = demo.read_bytes()
            capture = read_capture(data, None, self.limits)
            info = {"kind": "demo", "name": demo.name, "description": demo.description}
            return Loaded(f"demo:{name}", demo.title, capture, info, size=len(data))

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
            capture = ingest(data, record.format, limits, store=False).capture
            capture.noted_before(record.notes)
            return self._loaded(record, capture)

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
            size=record.size,
        )


def _version(record: CaptureRecord) -> tuple[int, str]:
    """What a cached copy was read from: a recording still growing, a renamed capture."""
    return (record.size, record.title)
