"""How payloads reach an interpreter fast (docs/performance.md, "Runs of payloads" and "Fast
paths"): a dialect's one-step reading of its commonest payload (``FastPath``), the items every
byte decoder hands over (``Item``), and the loop that places and reads a run of them
(``read_items``, what ``PayloadInterpreter.run`` does)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import msgspec

from .events import RawEvent

if TYPE_CHECKING:
    from .interpret import PayloadInterpreter


class FastPath(NamedTuple):
    """A dialect's commonest payload read in one step (docs/dialects.md is unchanged by it):
    ``decode`` is a msgspec decoder into typed structures that refuse any other key and type
    (every field typed, so what it accepts orjson reads too, with the same values); ``read``
    records the events the full reading would give, or returns False having recorded nothing
    (then the full reading takes the payload)."""

    decode: Callable[[bytes], Any]
    read: Callable[[Any, RawEvent, Any], bool]


REFUSED = (msgspec.ValidationError, msgspec.DecodeError)


class Item(Protocol):
    """A decoded payload as every byte decoder gives it (an SSE item, an NDJSON line, a JSON
    array element, an event-stream frame's): ``data`` is None for an SSE comment."""

    @property
    def raw(self) -> RawEvent: ...

    @property
    def data(self) -> bytes | None: ...

    @property
    def data_offset(self) -> int: ...


def read_one(it: PayloadInterpreter, raw: RawEvent, data: bytes) -> bool:
    """The interpreter's fast path, when it takes the payload; False, with nothing recorded,
    when there is none or it declines."""
    fast = it.fast
    if fast is None:
        return False
    try:
        shape = fast.decode(data)
    except REFUSED:
        return False
    if not fast.read(it, raw, shape):
        return False
    it.text = data
    return True


def read_items(
    it: PayloadInterpreter, items: Sequence[Item], start: int, stop: int, kept: list[RawEvent]
) -> int:
    """Place and read ``items[start:stop]`` in order, as ``it.payload`` reads each, in one loop
    with the fast path in locals (``PayloadInterpreter.run``). Returns the index of the first
    item not read."""
    fast = it.fast
    if fast is None:
        return _read_items_fully(it, items, start, stop, kept)
    decode, read = fast
    for i in range(start, stop):
        item = items[i]
        data = item.data
        if it.done or data is None or b"\n" in data:
            return i
        raw = item.raw
        raw.index = len(kept)
        kept.append(raw)
        if raw.event != "error":  # read_one, inlined: this runs per payload
            try:
                shape = decode(data)
            except REFUSED:
                pass
            else:
                if read(it, raw, shape):
                    it.text = data
                    continue
        it.full(raw, data, item.data_offset)
    return stop


def _read_items_fully(
    it: PayloadInterpreter, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]
) -> int:
    """``read_items`` for a dialect without a fast path."""
    while i < stop and not it.done:
        item = items[i]
        data = item.data
        if data is None or b"\n" in data:
            break
        raw = item.raw
        raw.index = len(kept)
        kept.append(raw)
        i += 1
        it.full(raw, data, item.data_offset)
    return i
