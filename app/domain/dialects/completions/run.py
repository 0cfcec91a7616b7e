"""A body's legacy completions chunks read in runs (docs/performance.md, "Fast paths"), as
``app/domain/dialects/chat/run.py`` reads chat chunks: ``read_run`` is ``PayloadInterpreter.run`` for
completions. The items of one read are placed and read in one loop with the stream's identity
in locals, as long as each is the commonest chunk: what ``app/domain/dialects/completions/fast.py`` reads, with
one choice and the identity as it stands (no ``Meta`` event to add). Every other payload is
read as ``fastpath.read_items`` reads it: the one-step reading, else the full one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...events import TextDelta
from ...fastpath import REFUSED, read_one
from .fast import decode

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...events import RawEvent
    from ...fastpath import Item
    from .interpreter import CompletionsInterpreter


def read_run(
    it: CompletionsInterpreter, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]
) -> int:
    """Place and read ``items[i:stop]`` (``PayloadInterpreter.run``): runs of common chunks
    here (``_common_run``), every other payload the one-step way, else the full way."""
    while i < stop:
        i, other = _common_run(it, items, i, stop, kept)
        if other is None:
            break
        raw, data = other.raw, other.data or b""
        if raw.event == "error" or not read_one(it, raw, data):
            it.full(raw, data, other.data_offset)
    return i


def _common_run(
    it: CompletionsInterpreter, items: Sequence[Item], i: int, stop: int, kept: list[RawEvent]
) -> tuple[int, Item | None]:
    """Place and read items from ``i`` while they are common chunks. Returns where it stopped
    and the item it placed but did not read (None: the item at ``i`` is not a one-line
    payload, the stream is done, or ``stop`` was reached)."""
    known, events = it.meta.get, it.stream.events
    kind, name, created = known("object"), known("id"), known("created")
    model, fingerprint = known("model"), known("system_fingerprint")
    seen = it.seen
    while i < stop:
        item = items[i]
        data = item.data
        if it.done or data is None or b"\n" in data:
            return i, None
        raw = item.raw
        raw.index = len(kept)
        kept.append(raw)
        i += 1
        if raw.event == "error":
            return i, item
        try:
            chunk = decode(data)
        except REFUSED:
            return i, item
        choices = chunk.choices
        if (  # completions/fast.py _read's checks, written out: this runs per chunk
            len(choices) != 1
            or choices[0].index not in seen
            or chunk.object != kind
            or (chunk.id and chunk.id != name)
            or (chunk.created is not None and chunk.created != created)
            or (chunk.model and chunk.model != model)
            or (chunk.system_fingerprint and chunk.system_fingerprint != fingerprint)
        ):
            return i, item
        it.chunks += 1
        it.text = data
        raw.choices = True
        choice = choices[0]
        if choice.text:
            raw.output = True
            events.append(
                TextDelta(
                    seq=len(events), raw=raw.index, t=raw.t, choice=choice.index, text=choice.text
                )
            )
    return i, None
