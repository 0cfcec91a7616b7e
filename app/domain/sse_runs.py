"""Runs of the commonest SSE events read at once (``FieldDecoder.lines``, sse_fields.py, hands
them here).

A stream's events are mostly of one form: a ``data:`` line then a blank line (chat
completions), or an ``event:`` line, a ``data:`` line and a blank line (Anthropic, Responses,
Cohere). A run of them, with no event pending, is found with list methods (``data_pairs``,
``event_triples``) and read with ``map`` over its lines, the positions summed by
``accumulate``: the items are exactly those that reading the lines one by one gives
(tests/test_fast_paths.py), without a Python statement per line.

Each finder looks at most ``window`` events ahead; the decoder doubles the window while runs
fill it and starts small again after a run another line broke, so the lines looked at stay
within a small multiple of those read, whatever the mix (tests/test_reading_runs.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import accumulate, repeat
from operator import add, itemgetter

import msgspec

from .events import RawEvent

FIRST_WINDOW, MAX_WINDOW = 4, 4096
_DATA = b"data: "
# A data line's value: what follows "data: " (bytes in, bytes out).
_after_data: Callable[[bytes], bytes] = itemgetter(slice(len(_DATA), None))


class SSEItem(msgspec.Struct, gc=False):
    """A dispatched SSE event (``data`` set) or a comment line (``comment`` set)."""

    raw: RawEvent
    data: bytes | None = None
    comment: str | None = None
    data_offset: int = 0  # byte offset of the first data value, for error positions


def _first(flags: list[bool], value: bool, count: int) -> int:
    """The index of the first ``value`` in ``flags``, or ``count``."""
    return flags.index(value) if value in flags else count


def _blank_lead(blanks: list[bytes]) -> int:
    """How many of ``blanks`` are blank lines before the first that is not. The lines come
    from ``bytes.split``, which gives every empty piece as the one empty ``bytes`` object, so
    a run of them is counted by identity first (a pass that calls nothing)."""
    if blanks.count(b"") == len(blanks):
        return len(blanks)
    return _first(list(map(bool, blanks)), True, len(blanks))


def _under(datas: list[bytes], count: int, max_line: int) -> list[int]:
    """The sizes of the first ``count`` data lines, or [] when one is over ``max_line`` (the
    line-by-line reading says which)."""
    sizes = list(map(len, datas[:count]))
    return sizes if sizes and max(sizes) <= max_line else []


def data_pairs(lines: list[bytes], i: int, max_line: int, window: int) -> list[int]:
    """The sizes of the data lines of the next events (at most ``window``) from ``lines[i]``
    that are a ``data: `` line (under ``max_line``) and a blank line."""
    stop = i + 2 * window
    datas, blanks = lines[i:stop:2], lines[i + 1 : stop : 2]
    count = _blank_lead(blanks)
    count = _first(list(map(bytes.startswith, datas[:count], repeat(_DATA))), False, count)
    return _under(datas, count, max_line)


def event_triples(
    lines: list[bytes], i: int, max_line: int, window: int, names: dict[bytes, str]
) -> tuple[list[str], list[int]]:
    """The names of the next events (at most ``window``) from ``lines[i]`` that are an
    ``event:`` line decoded before (``names``, keyed by the whole line), a ``data: `` line
    (under ``max_line``) and a blank line, and the sizes of their data lines."""
    stop = i + 3 * window
    events, datas, blanks = lines[i:stop:3], lines[i + 1 : stop : 3], lines[i + 2 : stop : 3]
    count = _blank_lead(blanks)
    named = list(map(names.get, events[:count]))
    count = named.index(None) if None in named else count
    count = _first(list(map(bytes.startswith, datas[:count], repeat(_DATA))), False, count)
    sizes = _under(datas, count, max_line)
    return named[: len(sizes)], sizes  # type: ignore[return-value]


def read_pairs(
    datas: list[bytes],
    sizes: list[int],
    byte: int,
    line: int,
    t: float | None,
    last_id: str | None,
) -> tuple[list[SSEItem], int]:
    """The items of ``data: `` lines (``sizes`` long) each followed by a blank line, from
    ``byte`` and ``line`` on, and the byte after the last one."""
    count = len(datas)
    ends = list(accumulate(map(add, sizes, repeat(2, count)), initial=byte))
    offsets = map(add, ends, repeat(len(_DATA)))  # from each start (ends[:-1]) on
    names = repeat(None, count)
    return _items(datas, ends, range(line, line + 2 * count, 2), names, offsets, t, last_id)


def read_triples(
    events: list[bytes],
    datas: list[bytes],
    named: list[str],
    sizes: list[int],
    byte: int,
    line: int,
    t: float | None,
    last_id: str | None,
) -> tuple[list[SSEItem], int]:
    """The items of ``event:`` and ``data: `` lines (``sizes`` long) each followed by a blank
    line (their names as ``event_triples`` found them), from ``byte`` and ``line`` on, and
    the byte after the last one."""
    count = len(events)
    event_sizes = list(map(len, events))
    ends = list(accumulate(map(add, map(add, event_sizes, sizes), repeat(3, count)), initial=byte))
    offsets = map(add, map(add, ends, event_sizes), repeat(1 + len(_DATA)))
    return _items(datas, ends, range(line, line + 3 * count, 3), iter(named), offsets, t, last_id)


def _items(
    datas: list[bytes],
    ends: list[int],
    lines: range,
    names: Iterator[str | None],
    offsets: Iterator[int],
    t: float | None,
    last_id: str | None,
) -> tuple[list[SSEItem], int]:
    """One raw event and item per data line: ``ends`` are the events' bounds (the first
    event's start, then each one's end), ``offsets`` where each payload starts."""
    count = len(datas)
    raws = map(
        RawEvent,
        repeat(-1, count),
        lines,
        ends[:-1],
        ends[1:],
        repeat(t, count),
        repeat("event", count),
        names,
        repeat(last_id, count),
    )
    payloads = map(_after_data, datas)
    return list(map(SSEItem, raws, payloads, repeat(None, count), offsets)), ends[-1]
