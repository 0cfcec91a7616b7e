"""What heavy GETs answer, built once per capture version and kept (docs/security.md, "Heavy
GETs"): the timeline document and its compressed forms, the static export, the downloads.

A result is written by its builder into a file as it is made (never joined in memory), its
SHA-256 taken on the way, which is its ETag. Results under ``IN_MEMORY`` bytes are kept in
memory (``MEMORY_BYTES`` of them at most); larger ones stay on disk under the data directory
(``results/``), where every worker of the server finds them (a result is a file and a small
JSON file beside it, each written under a temporary name and renamed), and are sent from
there without being read into memory. The folder is bounded (``max_bytes``): past it, the
least recently used results are removed. Builders for one result wait for the first (single
flight). A capture's results go when it is deleted (``drop``), and on another host sharing
the store when it is next asked for and is no longer there; a new version of a capture
(renamed, grown, new markers) is a new result. A result of something that may still change
(a live recording) is built each time, into a temporary file that is gone once sent
(``transient``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

IN_MEMORY = 256 * 1024
MEMORY_BYTES = 32 * 1024 * 1024  # small results kept in memory, at most


class Out(Protocol):
    """Where a builder writes its result."""

    def write(self, data: bytes | memoryview, /) -> int: ...


Build = Callable[[Out], None]


@dataclass(frozen=True)
class Result:
    digest: str  # hex SHA-256 of the bytes
    size: int
    body: bytes | None = None  # in memory
    path: Path | None = None  # on disk

    def open(self) -> IO[bytes]:
        """The bytes, to be sent (from disk, or from memory)."""
        if self.body is not None:
            return io.BytesIO(self.body)
        assert self.path is not None
        return self.path.open("rb")

    def read(self) -> bytes:
        with self.open() as handle:
            return handle.read()


class _Hashing:
    """Passes bytes on to a file, and counts and hashes them."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.sha = hashlib.sha256()
        self.size = 0

    def write(self, data: Any, /) -> int:
        self.out.write(data)
        self.sha.update(data)
        self.size += len(data)
        return len(data)


class Results:
    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self._memory: OrderedDict[str, Result] = OrderedDict()
        self._memory_bytes = 0
        self._building: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, owner: str, kind: str, version: str, build: Build) -> Result:
        """The result ``kind`` of ``owner`` (``capture-<id>``, ``demo-<name>``) at ``version``,
        built by ``build(out)`` when no worker has it yet."""
        name = f"{owner}.{kind}.{hashlib.sha256(version.encode()).hexdigest()[:32]}"
        found = self._found(name)
        if found is not None:
            return found
        with self._lock:
            building = self._building.setdefault(name, threading.Lock())
        try:
            with building:
                found = self._found(name)
                if found is None:
                    found = self._build(name, build)
                return found
        finally:
            with self._lock:
                if self._building.get(name) is building:
                    del self._building[name]

    def drop(self, owner: str) -> None:
        """Every result of ``owner``, from memory and from disk (its capture was deleted)."""
        prefix = f"{owner}."
        with self._lock:
            for name in [n for n in self._memory if n.startswith(prefix)]:
                self._forget(name)
        if self.folder.is_dir():
            for path in self.folder.glob(f"{glob_escape(owner)}.*"):
                with contextlib.suppress(OSError):
                    path.unlink()

    @staticmethod
    def transient(build: Build) -> tuple[IO[bytes], str, int]:
        """Built now and not kept: a temporary file (gone once closed), its digest and size."""
        handle = tempfile.TemporaryFile()  # noqa: SIM115 (returned open: the answer sends it)
        hashing = _Hashing(handle)
        build(hashing)
        handle.seek(0)
        return handle, hashing.sha.hexdigest(), hashing.size

    # ------------------------------------------------------------------ helpers
    def _found(self, name: str) -> Result | None:
        with self._lock:
            found = self._memory.get(name)
            if found is not None:
                self._memory.move_to_end(name)
                return found
        meta = self.folder / f"{name}.json"
        try:
            info = orjson.loads(meta.read_bytes())
            path = self.folder / name
            if path.stat().st_size != info["size"]:
                return None
            os.utime(path)  # used now: the last to be removed
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return Result(info["digest"], info["size"], path=path)

    def _build(self, name: str, build: Build) -> Result:
        self.folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".building-") as handle:
            hashing = _Hashing(handle)
            build(hashing)
            handle.flush()
            digest, size = hashing.sha.hexdigest(), hashing.size
            if size < IN_MEMORY:
                handle.seek(0)
                result = Result(digest, size, body=handle.read())
                self._remember(name, result)
                return result
            path = self.folder / name
            meta = orjson.dumps({"digest": digest, "size": size})
            _write_atomically(self.folder / f"{name}.json", meta)
            linked = self.folder / f".linking-{name}"  # the temporary name goes once closed
            os.link(handle.name, linked)
            os.replace(linked, path)
        self._evict()
        return Result(digest, size, path=path)

    def _remember(self, name: str, result: Result) -> None:
        with self._lock:
            self._memory[name] = result
            self._memory_bytes += result.size
            while self._memory_bytes > MEMORY_BYTES and len(self._memory) > 1:
                self._forget(next(iter(self._memory)))

    def _forget(self, name: str) -> None:
        result = self._memory.pop(name)
        self._memory_bytes -= result.size

    def _evict(self) -> None:
        """Remove the least recently used results on disk until the folder fits."""
        entries = []
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.folder):
                if entry.name.startswith(".") or entry.name.endswith(".json"):
                    continue  # one being written, or a result's description
                if entry.is_file():
                    stat = entry.stat()
                    entries.append((stat.st_mtime, stat.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            for doomed in (path, f"{path}.json"):
                with contextlib.suppress(OSError):
                    os.unlink(doomed)
            total -= size


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".writing-{path.name}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)
