"""A value's JSON text as it was sent: the bytes of one value of a payload, found by its path
(keys and list positions) without building the objects around it.

Logprob entries are kept this way (``events.Logprobs``): the timeline holds what the server
wrote, byte for byte, and a reader never writes them back out. A list sent over several lines
(a pretty-printed payload) is put on one line, its whitespace between tokens taken out, so an
event's entries are always one line of JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import msgspec
import orjson

_MISSED = (msgspec.DecodeError, msgspec.ValidationError, IndexError)
_NOT_SENT = msgspec.Raw()  # a key the payload does not have


def sent_text(payload: bytes | str, path: tuple[str | int, ...]) -> bytes | None:
    """The JSON text (UTF-8) of the value at ``path`` in ``payload``, as sent; None when there
    is no such value. A key sent twice is its last value, as orjson reads it. One msgspec
    pass over the payload, which skips everything off the path (``_reader``)."""
    try:
        value: Any = _reader(path)(payload)
        for step in path:
            value = value[step] if type(step) is int else value.at
            if value is None:
                return None
    except _MISSED:
        return None
    return bytes(value) if value is not _NOT_SENT else None


@lru_cache(maxsize=64)
def _reader(path: tuple[str | int, ...]) -> Callable[[bytes | str], Any]:
    """A decoder of the structure that ``path`` goes down (a key: an object whose ``at`` is
    that key's value; a position: a list), every other key skipped, the value at its end as
    sent (``msgspec.Raw``). A step that is not there (or ``null``) reads as None."""
    kind: Any = msgspec.Raw
    default: Any = _NOT_SENT
    for step in reversed(path):
        if isinstance(step, int):
            kind, default = list[kind] | None, None
        else:
            kind = msgspec.defstruct("At", [("at", kind, default)], rename={"at": step})
            kind, default = kind | None, None
    return msgspec.json.Decoder(kind).decode


def sent_items(payload: bytes | str | None, path: tuple[str | int, ...], items: list[Any]) -> bytes:
    """The items of the list at ``path`` as sent, without its brackets. ``items`` is that list
    as read: it is written out instead when the payload is not the exact JSON it was read
    from (``payload`` None: the lenient decoder repaired it), or when the way to it is not
    objects and lists (a choice that is a number beside the one read): no fast reading
    takes such a payload, so every reading keeps the same."""
    text = sent_text(payload, path) if payload is not None else None
    if text is None or text[:1] != b"[":
        return orjson.dumps(items)[1:-1]
    if b"\n" in text or b"\r" in text:
        text = msgspec.json.format(text, indent=-1)
    return text[1:-1]
