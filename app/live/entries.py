"""The messages of a live run's Redis entries as a mirror handles them (``mirror.py``): their
kind, read from the text (every message starts with its type: protocol.encode), the events an
``events`` message holds, what is left of one once a page has some of its events, and the
merging of consecutive ``raw_meta`` and ``events`` messages into one of each per delivery, as a
local run's writer merges its log pieces (hub.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson

from ..protocol import RAW_COLUMNS, encode
from ..wire import BATCH_BYTES
from .followed import Piece


def kind_of(text: str) -> str:
    """A message's type: every message starts with it (protocol.encode)."""
    if not text.startswith('{"type":"'):
        return ""
    return text[9 : text.find('"', 9)]


def merged_raw(texts: list[str]) -> Iterator[str]:
    """Consecutive ``raw_meta`` messages as one, when each starts where the last ended."""
    if len(texts) < 2:
        yield from texts
        return
    parts = [orjson.loads(text) for text in texts]
    first = parts[0]
    at = first["start"]
    for part in parts:
        if part["start"] != at or part["stream"] != first["stream"]:
            yield from texts  # not contiguous (a snapshot overlapping): as they are
            return
        at += len(part["t"])
    columns = {c: [v for part in parts for v in part[c]] for c in RAW_COLUMNS}
    yield encode("raw_meta", stream=first["stream"], start=first["start"], **columns)


def merged_events(texts: list[str]) -> Iterator[str]:
    """Consecutive ``events`` messages of one stream as one (up to about BATCH_BYTES each),
    joined as text: each is ``{"type":"events","stream":N,"events":[...]}`` (protocol.encode)."""
    if len(texts) < 2:
        yield from texts
        return
    head = texts[0][: texts[0].index("[") + 1]
    if not all(t.startswith(head) and t.endswith("]}") for t in texts):
        yield from texts
        return
    bodies: list[str] = []
    size = 0
    for text in texts:
        body = text[len(head) : -2]
        if bodies and size + len(body) > BATCH_BYTES:
            yield head + ",".join(bodies) + "]}"
            bodies, size = [], 0
        if body:
            bodies.append(body)
            size += len(body)
    if bodies:
        yield head + ",".join(bodies) + "]}"


def events_piece(text: str, first: int) -> Piece:
    """An ``events`` message as a log piece that knows the events it holds."""
    count = len(orjson.loads(text)["events"])
    return Piece(event_start=first, event_end=first + count, message=text)


def skip_seen(piece: Piece, seen: int) -> list[Piece]:
    if piece.event_end <= seen:
        return []
    if piece.event_start >= seen:
        return [piece]
    message = orjson.loads(piece.message or "{}")
    rest = message["events"][seen - piece.event_start :]
    text = encode("events", stream=message["stream"], events=rest)
    return [Piece(event_start=seen, event_end=piece.event_end, message=text)]


def events_from(piece: Piece, seen: int) -> list[str]:
    return [p.message or "" for p in skip_seen(piece, seen)]
