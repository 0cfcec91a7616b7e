"""A replay as one cacheable HTTP resource: ``GET /api/captures/<id>/timeline`` and
``GET /api/demos/<name>/timeline`` (docs/protocol.md, "The timeline document").

The document holds the messages a replay sends over the websocket, in the order it sends them
(``capture``, per stream ``raw_meta``, ``events`` batches and ``summary``, then ``end``), taken
from the capture's encoded replay (replay.py), so the two never differ. It is built once per
capture and per variant (one build at a time: viewers arriving together wait for it), each
compressed form made once (codings.py: brotli or gzip, by ``Accept-Encoding``), and kept in the
results (results.py: on disk when large, written as it is made and sent from there), never
joined in memory. ``?raw=1`` adds the raw event texts (``raw`` messages) for a player without
a server (the static export); ``GET /api/captures/<id>/timeline/raw`` serves them a page at a time, for
the player page replaying over HTTP (rawpages.py).

Caching. The ETag is the document's SHA-256 (strong; a compressed form's has ``.br`` or ``.gz``
appended),
and a conditional GET that names it gets 304. What can change a stored capture's document is a
rename (the title is in its ``capture`` message) and a live recording that is still growing;
so the bare URL is ``no-cache`` (kept, revalidated each time, 304 while unchanged), and the
URL that names its version, ``?v=<etag>`` (the ``timeline_url`` of the capture's metadata),
is ``public, max-age=31536000, immutable`` once the capture can no longer grow: a rename gives
a new version and so a new URL. A recording still growing is never immutable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from flask import Blueprint, Response, request, url_for

from ..demos import find as find_demo
from ..live.recorder import RECORDED_KINDS
from ..protocol import MAX_RAW_REQUEST, VERSION, encode
from ..settings import Settings
from ..wire import StreamEncoder
from .codings import SUFFIX, compress_stream, negotiate
from .errors import NotFound
from .replay import encoded_capture
from .results import Out, Result, Results
from .sending import heavy, matches, send
from .services import services
from .sources import Loaded

documents = Blueprint("documents", __name__, url_prefix="/api")

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "public, no-cache"
GROWING = "no-cache"


@dataclass(frozen=True)
class TimelineDocument:
    """A capture's document: kept in the results (``kept``) once the capture cannot grow;
    built for each request while it can (``built``, a temporary file for this request)."""

    digest: str  # hex SHA-256 of the JSON document, its version
    finished: bool  # the capture can no longer grow
    kept: Result | None
    built: IO[bytes] | None  # a growing capture's, built for this request
    owner: str
    kind: str
    version: str

    def etag(self, coding: str | None) -> str:
        return f'"{self.digest}{SUFFIX[coding] if coding else ""}"'

    def body(self, results: Results, coding: str | None) -> tuple[IO[bytes], int]:
        """The document in ``coding`` (None: as it is), to be sent, and its size."""
        if self.kept is not None:
            form = self.kept
            if coding is not None:
                kept = self.kept
                form = results.get(
                    self.owner,
                    f"{self.kind}.{coding}",
                    self.version,
                    lambda out: _compressed(kept.open(), coding, out),
                )
            return form.open(), form.size
        handle = self.built
        assert handle is not None
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(0)
        if coding is None:
            return handle, size
        with handle:
            packed, _, packed_size = Results.transient(
                lambda out: compress_stream(handle, coding, out)
            )
        return packed, packed_size

    def close(self) -> None:
        if self.built is not None:
            self.built.close()


def _compressed(source: IO[bytes], coding: str, out: Out) -> None:
    with source:
        compress_stream(source, coding, out)


def growing(loaded: Loaded) -> bool:
    """A live recording that has not ended yet (its stored bytes have no end line)."""
    return loaded.recorded_live and any(s.end_reason is None for s in loaded.capture.streams)


def write_document(loaded: Loaded, settings: Settings, out: Out, *, raw: bool) -> None:
    """``{"version": 3, "messages": [...]}``, with ``"raw": [...]`` when asked, written a
    message at a time from the capture's encoded replay (never joined in memory)."""
    encoded = encoded_capture(loaded, settings)
    out.write(f'{{"version":{VERSION},"messages":['.encode())
    out.write(encoded.capture.payload)
    for stream in encoded.streams:
        out.write(b",")
        out.write(stream.raw_meta.payload)
        for batch in stream.batches():
            out.write(b",")
            out.write(batch.payload)
        out.write(b",")
        out.write(stream.summary().payload)
    out.write(b"," + encode("end", reason="complete").encode() + b"]")
    if raw:
        out.write(b',"raw":[')
        for index, message in enumerate(raw_messages(loaded)):
            out.write((b"," if index else b"") + message.encode())
        out.write(b"]")
    out.write(b"}")


def raw_messages(loaded: Loaded) -> Iterator[str]:
    """Every raw event's text, as ``raw`` messages (the shape the websocket answers a
    ``raw_request`` with), a page at a time."""
    for stream in loaded.capture.streams:
        encoder = StreamEncoder(stream)
        for start in range(0, len(stream.raw), MAX_RAW_REQUEST):
            items = encoder.raw_items(start, MAX_RAW_REQUEST)
            yield encode("raw", stream=stream.index, start=start, items=items)


@dataclass(frozen=True)
class Subject:
    """What a heavy GET is about, known without reading it: its owner in the results, the
    version its results are made from, and how to read it (only when a result is built, or
    when it may still grow)."""

    owner: str  # capture-<id>, demo-<name>
    version: str
    load: Callable[[], Loaded]
    may_grow: bool  # a live recording or a proxied call's: read to know whether it has ended
    known: Callable[[str], str | None] = lambda version: None  # a digest kept with the capture
    keep: Callable[[str, str], None] = lambda version, digest: None  # keep one

    def growing(self) -> Loaded | None:
        """The capture, read, if it is still growing (its results are built each time)."""
        if not self.may_grow:
            return None
        loaded = self.load()
        return loaded if growing(loaded) else None


def stored_subject(capture_id: str) -> Subject:
    found = services()
    record = found.store.get(capture_id)
    if record is None:  # deleted (maybe through another host sharing the store) or expired
        found.results.drop(f"capture-{capture_id}")
        raise NotFound("no such capture (deleted, expired, or never uploaded)", code="no_capture")
    return Subject(
        f"capture-{capture_id}",
        f"{record.size}|{record.title}|{record.sha256}",
        lambda: found.sources.stored(capture_id),
        record.source in RECORDED_KINDS,
        lambda version: found.store.document_digest(capture_id, version),
        lambda version, digest: found.store.remember_document(capture_id, version, digest),
    )


def demo_subject(name: str) -> Subject:
    found = services()
    demo = find_demo(name)
    if demo is None:
        raise NotFound(f"no demo named {name!r}", code="no_demo")
    stat = demo.path.stat()
    return Subject(
        f"demo-{name}",
        f"{stat.st_size}|{stat.st_mtime_ns}",
        lambda: found.sources.demo(name),
        False,
    )


def _version(subject: Subject, settings: Settings) -> str:
    """The protocol, the subject's version and the settings that shape its messages."""
    shaping = (settings.event_batch, settings.stall_ms, settings.untimed_pace_ms)
    return f"{VERSION}|{subject.version}|{shaping!r}"


def timeline_document(
    subject: Subject, settings: Settings, *, raw: bool = False
) -> TimelineDocument:
    """The document, built once per version and variant and kept in the results (concurrent
    first requests wait for the one build; the capture is read only to build it); a growing
    one, built each time."""
    kind = "timeline-raw" if raw else "timeline"
    version = _version(subject, settings)
    live = subject.growing()
    if live is not None:
        handle, digest, _ = Results.transient(
            lambda out: write_document(live, settings, out, raw=raw)
        )
        return TimelineDocument(digest, False, None, handle, subject.owner, kind, version)

    def build(out: Out) -> None:
        write_document(subject.load(), settings, out, raw=raw)

    kept = services().results.get(subject.owner, kind, version, build)
    if not raw:
        subject.keep(version, kept.digest)  # the page reads it there (storage/documents.py)
    return TimelineDocument(kept.digest, True, kept, None, subject.owner, kind, version)


def document_digest(subject: Subject, settings: Settings) -> str | None:
    """The version of a capture's document that cannot grow (the page's ``?v=``), as kept
    with the capture, else from the document (built if need be); None while it grows."""
    if subject.growing() is not None:
        return None
    known = subject.known(_version(subject, settings))
    if known is not None:
        return known
    doc = timeline_document(subject, settings)
    doc.close()
    return doc.digest


def cache_control(digest: str | None) -> str:
    """Immutable only at the URL naming the current version (``digest``) of a capture that
    cannot grow (None: it may still grow)."""
    if digest is None:
        return GROWING
    return IMMUTABLE if request.args.get("v") == digest else REVALIDATE


def serve(subject: Subject) -> Response:
    doc = timeline_document(subject, services().settings, raw=request.args.get("raw") == "1")
    coding = negotiate(request.accept_encodings)
    etag = doc.etag(coding)
    cache = cache_control(doc.digest if doc.finished else None)
    if matches(request.headers.get("If-None-Match"), etag):
        doc.close()
        return send(None, 0, etag, cache, "application/json", vary=True)
    body, size = doc.body(services().results, coding)
    return send(body, size, etag, cache, "application/json", coding=coding, vary=True)


def timeline_url(capture_id: str) -> str:
    """The URL of the capture's current document version (immutable once finished)."""
    subject = stored_subject(capture_id)
    digest = document_digest(subject, services().settings)
    if digest is None:  # still growing: the bare URL, revalidated each time
        return url_for("documents.capture_timeline", capture_id=capture_id)
    return url_for("documents.capture_timeline", capture_id=capture_id, v=digest)


@documents.get("/captures/<capture_id>/timeline")
@heavy
def capture_timeline(capture_id: str) -> Response:
    return serve(stored_subject(capture_id))


@documents.get("/demos/<name>/timeline")
@heavy
def demo_timeline(name: str) -> Response:
    return serve(demo_subject(name))
