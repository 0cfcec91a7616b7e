"""Recording a live run in the timed capture format, into the capture store, as it streams.

Credentials never reach the recording: what it is given has been redacted (``redact.py``: the
request's own key and header values, and key-shaped strings, across read boundaries), and
headers are not recorded at all. Writes are batched (every quarter second or 64 KiB) so that a
fast stream does not cost a transaction per read; the end always flushes. When the capture is
deleted while it streams, the recorder says so (``deleted``) and writes nothing more. With
``defer`` the store's writes are handed to it (in order) instead of made on the caller's
thread: a proxied call's reads never wait for the store (docs/proxy.md); a write that fails
there sets ``failed``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..captures.scrub import scrub_url
from ..captures.timed import end_line, header_line, read_line, response_line
from ..storage import CaptureStore, NewCapture
from .redact import Redactor

FLUSH_SECONDS = 0.25
FLUSH_BYTES = 64 * 1024


def public_source(url: str, redactor: Redactor) -> dict[str, Any]:
    return {"url": redactor.text(scrub_url(url, redactor.redactions)), "kind": "live"}


def clean_body(body: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    return orjson.loads(redactor.whole(orjson.dumps(body)))


# The store's source column of recordings that grow until their end line: live runs, and
# proxied calls (docs/proxy.md). Until then their timeline is never immutable.
RECORDED_KINDS = frozenset({"live", "proxy"})


class Recorder:
    """Owns one capture record while its run streams."""

    def __init__(
        self,
        store: CaptureStore,
        redactor: Redactor,
        *,
        url: str,
        body: dict[str, Any],
        title: str,
        api: str | None = None,
        source: dict[str, Any] | None = None,
        kind: str = "live",
        defer: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """``source``: the header's source when the caller describes more than the URL (a
        proxied call: docs/proxy.md), already scrubbed; ``kind``: the store's source column."""
        self.store = store
        self.redactor = redactor
        self.defer = defer
        created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        header = header_line(
            created=created,
            source=source or public_source(url, redactor),
            api=api,
            request=clean_body(body, redactor),
        )
        record, token = store.add(
            NewCapture(
                data=header, title=title, format="timed", streams=1, source=kind, redacted=[]
            )
        )
        self.capture_id = record.id
        self.delete_token = token
        self._buffer: list[bytes] = []
        self._size = 0
        self._flushed = time.monotonic()
        self.size = len(header)  # bytes recorded so far, for the run's size cap
        self.deleted = False
        self.failed = False  # a deferred write failed (it was logged where it ran)
        self._reported: list[dict[str, Any]] = []  # the redactions the store has
        # The header as a reader of the stored recording sees it (timed.py): the stream read
        # live is labelled the same way, so it is the capture the stored bytes read as.
        self.header: dict[str, Any] = orjson.loads(header)

    # Each step gives back the line it recorded (``recorded.py`` publishes the same bytes).
    def response(
        self, t: float, status: int, content_type: str, headers: dict[str, str] | None = None
    ) -> bytes:
        return self._add(response_line(t, status, content_type, headers))

    def read(self, t: float, data: bytes) -> bytes:
        return self._add(read_line(t, data))

    def end(self, t: float, reason: str, error: str | None) -> bytes:
        line = self._add(end_line(t, reason, self.redactor.text(error) if error else None))
        self.flush()
        self._write(self._finish)
        return line

    def _finish(self) -> None:
        if not self.deleted and not self.failed:
            try:
                self.store.finish(
                    self.capture_id, streams=1, fmt="timed", redacted=self._redactions()
                )
            except KeyError:
                self.deleted = True

    def _redactions(self) -> list[dict[str, Any]] | None:
        """What the sweep has removed so far, when the store does not have it yet (the
        capture's ``redacted``, as an upload's: docs/security.md)."""
        found = self.redactor.redactions.as_list()
        if found == self._reported:
            return None
        self._reported = found
        return found

    def _add(self, line: bytes) -> bytes:
        if self.deleted:
            return line
        self._buffer.append(line)
        self._size += len(line)
        self.size += len(line)
        if self._size >= FLUSH_BYTES or time.monotonic() - self._flushed >= FLUSH_SECONDS:
            self.flush()
        return line

    def flush(self) -> None:
        if self._buffer and not self.deleted:
            data = b"".join(self._buffer)
            redacted = self._redactions()
            self._write(lambda: self._append(data, redacted))
        self._buffer, self._size = [], 0
        self._flushed = time.monotonic()

    def _append(self, data: bytes, redacted: list[dict[str, Any]] | None) -> None:
        if self.deleted or self.failed:
            return
        try:
            self.store.append(self.capture_id, data, redacted=redacted)
        except KeyError:  # deleted by its owner while it streams
            self.deleted = True
        except Exception:
            self.failed = True
            raise

    def _write(self, task: Callable[[], None]) -> None:
        """A write to the store, now or (``defer``) in its turn on another thread."""
        if self.defer is None:
            task()
        else:
            self.defer(task)


def run_title(url: str, model: str | None) -> str:
    host = urlsplit(url).netloc.rpartition("@")[2] or "upstream"
    return f"Live: {model or 'model'} at {host}"
