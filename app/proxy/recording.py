"""A proxied call's recording: a live run (``app/live/hub.py``) fed by the call's reads, so
its share link follows the live edge while it streams and replays like any recording after
(docs/proxy.md).

A failure to record never breaks the call: every step here catches its own failure, logs it
(without secrets: ``app/web/logs.py``) and stops recording, and the call goes on. The run's
``stop`` (its recording passed ``STREAMSCOPE_MAX_LIVE_MB``, or was deleted while it streamed)
ends the recording there, with that reason, and leaves the call going: a recording never
decides what the app receives. Viewers cannot stop the app's call either (``cancel`` does
nothing).

Secrets: the recording's redactor knows the call's credentials (``headers.credentials``) and
the key shapes, across read boundaries (``app/live/redact.py``); the request body and the
response headers are scrubbed as an uploaded timed capture's header is
(``app/captures/scrub/values.py``). A body the upstream compressed although it was asked not
to is decoded for the recording (gzip, deflate); one it cannot decode is not recorded, since it
could not be scrubbed.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ..captures.scrub import scrub_json
from ..live.hub import LiveRun, Registry
from ..live.recorder import Recorder
from ..live.redact import Redactor
from ..storage import CaptureRecord, CaptureStore

log = logging.getLogger("streamscope.proxy")
DECODED_PIECE = 1 << 20  # bytes of a compressed read decoded at a time
DECODERS: dict[str, Callable[[], Any]] = {
    "gzip": lambda: zlib.decompressobj(wbits=31),
    "x-gzip": lambda: zlib.decompressobj(wbits=31),
    "deflate": lambda: zlib.decompressobj(wbits=15),
}


class Recording:
    def __init__(
        self,
        run: LiveRun,
        registry: Registry,
        on_done: Callable[[LiveRun], None],
        defer: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        self.run = run
        self.registry = registry
        self.on_done = on_done
        self.defer = defer or (lambda task: task())  # after the store's writes (writer.py)
        self.on_outcome: Callable[[str], None] | None = None  # told once all is stored
        self.capture_id = run.capture_id
        self.delete_token = run.recorder.delete_token
        self.ended: str | None = None  # the recording's end reason, once it ended
        self._stop: tuple[str, str] | None = None
        self._decoder: Any = None
        self._ending = False  # the run's end has begun (it is not begun twice)
        self.stored = False  # everything it recorded is in the store
        run.upstream = self
        registry.add(run)

    # ------------------------------------------------------------------ what the run may ask
    def cancel(self) -> None:
        """A viewer's Stop: the app's call is not the viewer's to stop."""

    def stop(self, reason: str, message: str) -> None:
        if self._stop is None:
            self._stop = (reason, message)

    # ------------------------------------------------------------------ the call's steps
    def response(self, t: float, status: int, content_type: str, headers: dict[str, str]) -> None:
        def step() -> None:
            clean = scrub_json(headers, self.run.redactor.redactions)
            self.run.response(t, status, content_type, {k: str(v) for k, v in clean.items()})
            encoding = headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):
                maker = DECODERS.get(encoding)
                if maker is None:
                    self.stop(
                        "error",
                        f"the upstream sent a {encoding[:40]}-encoded body, which is not recorded "
                        "(it could not be scrubbed)",
                    )
                    self._finish(t)
                    return
                self._decoder = maker()

        self._guard("the response", step, t)

    def read(self, t: float, data: bytes) -> None:
        if self.ended is not None:
            return

        def step() -> None:
            for plain in self._plain(data):
                self.run.read(t, plain)
                if self.run.recorder.failed:
                    raise OSError("the store failed to keep the recording")
                if self._stop is not None:
                    self._finish(t)
                    return

        self._guard("a read", step, t)

    def end(self, t: float, reason: str, error: str | None) -> None:
        if self.ended is not None:
            return
        self._guard("the end", lambda: self._finish(t, (reason, error)), t)

    # ------------------------------------------------------------------ inside
    def _plain(self, data: bytes) -> Iterator[bytes]:
        """A read as recorded: decoded a piece at a time when the upstream compressed it, so a
        small read that inflates past the run's cap costs a piece, not all of it."""
        decoder = self._decoder
        if decoder is None:
            yield data
            return
        yield decoder.decompress(data, DECODED_PIECE)
        while decoder.unconsumed_tail:
            yield decoder.decompress(decoder.unconsumed_tail, DECODED_PIECE)

    def _finish(self, t: float, outcome: tuple[str, str | None] | None = None) -> None:
        reason, message = outcome or self._stop or ("error", "the recording stopped")
        self.ended = reason
        self._ending = True
        try:
            self.run.end(t, reason, message)
        finally:
            self.defer(self._done)

    def _done(self) -> None:
        """Once the recording is in the store: its share link reads it from there."""
        try:
            if not self.run.recorder.failed and self.ended != "failed":
                self.on_done(self.run)
        finally:
            self.registry.remove(self.capture_id)
            self.stored = True
            if self.on_outcome is not None and self.outcome is not None:
                self.on_outcome(self.outcome)

    def _guard(self, what: str, step: Callable[[], None], t: float) -> None:
        try:
            step()
        except Exception:
            log.exception("recording %s of a proxied call failed; the call goes on", what)
            self._failed(t)

    def _failed(self, t: float) -> None:
        """Recording stops here; its viewers get an end whatever the store does."""
        self.ended = "failed"
        try:
            if not self.run.finished and not self._ending:
                self._ending = True
                self.run.end(t, "error", "the recording failed; the call went on")
        except Exception:
            log.exception("ending a failed recording failed too")
        finally:
            self.run.abandon("the recording failed; the call went on")  # if still unfinished
            self.defer(self._done)

    @property
    def outcome(self) -> str | None:
        """How the recording ended, once it is all in the store (``failed`` when the store
        failed it); None until then."""
        if self.run.recorder.failed:
            return "failed"
        return self.ended if self.stored else None


def start_recording(
    store: CaptureStore,
    registry: Registry,
    *,
    redactor: Redactor,
    url: str,
    source: dict[str, Any],
    body: bytes,
    title: str,
    api: str | None,
    stall_ms: float,
    max_bytes: int,
    remember: Callable[[CaptureRecord, LiveRun], None],
    defer: Callable[[Callable[[], None]], None] | None = None,
) -> Recording | None:
    """The call's recording, in the store from now on; None (logged) when it cannot start.
    ``remember`` is told the record and the finished run once it is all stored (not when it was
    deleted while it streamed): the parsed-capture cache and the OpenTelemetry export."""
    try:
        request = scrub_json(request_of(body, redactor), redactor.redactions)
        clean_source = scrub_json(
            {k: redactor.text(v) if isinstance(v, str) else v for k, v in source.items()},
            redactor.redactions,
        )
        recorder = Recorder(
            store,
            redactor,
            url=url,
            body=request,
            title=redactor.text(title),
            api=api,
            source=clean_source,
            kind="proxy",
            defer=defer,
        )
        run = LiveRun(None, recorder, redactor, stall_ms, max_bytes)

        def done(finished: LiveRun) -> None:
            record = store.get(finished.capture_id)
            if record is not None:  # not deleted while it streamed
                remember(record, finished)

        return Recording(run, registry, done, defer)
    except Exception:
        log.exception("a proxied call could not be recorded; it is forwarded all the same")
        return None


def request_of(body: bytes, redactor: Redactor) -> dict[str, Any]:
    """The request body as the recording keeps it: a JSON object as it is (secrets out), any
    other body as what it is, never its bytes (the timed header's ``request`` is an object)."""
    if not body:
        return {}
    if too_many_containers(body):
        return {
            "body": f"{len(body)} bytes with more than {MAX_CONTAINERS:,} JSON objects and "
            "arrays (not recorded)"
        }
    try:
        value = orjson.loads(redactor.whole(body))
    except orjson.JSONDecodeError:
        return {"body": f"{len(body)} bytes, not a JSON object (not recorded)"}
    if isinstance(value, dict):
        return value
    return {"body": f"{len(body)} bytes of JSON, not an object (not recorded)"}


# A body's JSON costs about 70 bytes per object or array once parsed: a capped body of empty
# objects would take 50 times its size, twice (its model, its recording). Past this many it is
# forwarded as it is and not parsed (docs/proxy.md, "Limits").
MAX_CONTAINERS = 200_000


def too_many_containers(body: bytes) -> bool:
    """Whether the body may hold more objects and arrays than are parsed (brackets in strings
    count too: a bound, not a count)."""
    return body.count(b"{") + body.count(b"[") > MAX_CONTAINERS
