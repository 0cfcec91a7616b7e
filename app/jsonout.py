"""A JSON document written in pieces, byte for byte as ``orjson.dumps(value, OPT_INDENT_2)``.

``inspect --json`` prints every stream's summary, whose assembled completion holds, for 100k
chunks with logprobs, every logprob entry (as large as the events that carried them). Built
whole, the output would sit in memory beside the timeline it came from. Here objects are
written key by key and long lists a slice at a time, each piece by orjson, so what is held at
once is one slice's text (docs/performance.md), and long strings a part at a time. Values
orjson writes on one line (strings, numbers, fragments) are written as they are; a piece that
spans lines is indented to its depth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

SLICE = 256  # list items per orjson call
TEXT = 16 * 1024  # characters of a long string per orjson call
FLUSH = 64 * 1024  # bytes gathered before a write
_INDENT = orjson.OPT_INDENT_2


def pieces(value: Any, depth: int = 0) -> Iterator[bytes]:
    """``value`` as indented JSON, in pieces (their join is ``orjson.dumps(value,
    OPT_INDENT_2)``)."""
    if isinstance(value, dict) and value:
        yield b"{\n"
        last = len(value) - 1
        pad = b"  " * (depth + 1)
        for number, (key, item) in enumerate(value.items()):
            yield pad + orjson.dumps(key) + b": "
            yield from pieces(item, depth + 1)
            yield b",\n" if number < last else b"\n"
        yield b"  " * depth + b"}"
    elif isinstance(value, list) and len(value) > SLICE:
        yield b"[\n"
        for start in range(0, len(value), SLICE):
            if start:
                yield b",\n"
            # orjson writes the slice as "[\n  item,\n  item\n]": its items, one level in.
            text = orjson.dumps(value[start : start + SLICE], option=_INDENT)
            yield _items_at(text[2:-2], depth)
        yield b"\n" + b"  " * depth + b"]"
    elif isinstance(value, list) and value:
        yield b"[\n"
        pad = b"  " * (depth + 1)
        for number, item in enumerate(value):
            yield pad
            yield from pieces(item, depth + 1)
            yield b",\n" if number < len(value) - 1 else b"\n"
        yield b"  " * depth + b"]"
    elif isinstance(value, str) and len(value) > TEXT:
        # A long text a part at a time: escaping is per character, so the parts' escapes
        # joined are the whole one's (orjson sizes its buffer for the worst case of each).
        yield b'"'
        for start in range(0, len(value), TEXT):
            yield orjson.dumps(value[start : start + TEXT])[1:-1]
        yield b'"'
    else:
        text = orjson.dumps(value, option=_INDENT)
        yield _deeper(text, depth) if b"\n" in text else text


def _deeper(text: bytes, depth: int) -> bytes:
    """A value written at depth 0 whose first line is in place: the others ``depth`` in."""
    return text.replace(b"\n", b"\n" + b"  " * depth) if depth else text


def _items_at(text: bytes, depth: int) -> bytes:
    """List items as orjson writes them inside a list at depth 0 ("  item,\n  item"), every
    line ``depth`` levels in."""
    if not depth:
        return text
    pad = b"  " * depth
    return pad + text.replace(b"\n", b"\n" + pad)


def write(value: Any, out: Callable[[bytes], Any]) -> None:
    """``value`` as indented JSON and a newline, to ``out`` (a file's ``write``) in writes of
    about ``FLUSH`` bytes."""
    gathered: list[bytes] = []
    size = 0
    for piece in pieces(value):
        if len(piece) >= FLUSH:  # a long text: written as it is, not copied into a join
            out(b"".join(gathered))
            out(piece)
            gathered, size = [], 0
            continue
        gathered.append(piece)
        size += len(piece)
        if size >= FLUSH:
            out(b"".join(gathered))
            gathered, size = [], 0
    gathered.append(b"\n")
    out(b"".join(gathered))
