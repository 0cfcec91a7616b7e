"""A value's JSON text as it was sent: the bytes of one value of a payload, found by its path
(keys and list positions) without building the objects around it.

Logprob entries are kept this way (``events.Logprobs``): the timeline holds what the server
wrote, byte for byte, and a reader never writes them back out. A list sent over several lines
(a pretty-printed payload) is put on one line, its whitespace between tokens taken out, so an
event's entries are always one line of JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import orjson

_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_LIST = msgspec.json.Decoder(list[msgspec.Raw]).decode
_MISSED = (msgspec.DecodeError, msgspec.ValidationError, KeyError, IndexError)


def sent_text(payload: bytes | str, path: Sequence[str | int]) -> bytes | None:
    """The JSON text (UTF-8) of the value at ``path`` in ``payload``, as sent; None when there
    is no such value. A key sent twice is its last value, as orjson reads it."""
    value: Any = payload
    try:
        for step in path:
            value = _LIST(value)[step] if isinstance(step, int) else _OBJECT(value)[step]
    except _MISSED:
        return None
    return bytes(value)


def sent_items(payload: bytes | str | None, path: Sequence[str | int], items: list[Any]) -> bytes:
    """The items of the list at ``path`` as sent, without its brackets. ``items`` is that list
    as read: it is written out instead when the payload is not the exact JSON it was read
    from (``payload`` None: the lenient decoder repaired it)."""
    text = sent_text(payload, path) if payload is not None else None
    if text is None or text[:1] != b"[":
        return orjson.dumps(items)[1:-1]
    if b"\n" in text or b"\r" in text:
        text = msgspec.json.format(text, indent=-1)
    return text[1:-1]
