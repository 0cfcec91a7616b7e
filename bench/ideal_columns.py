"""What a reader that keeps its timeline in columns would cost: the evidence behind the next
step of docs/performance.md ("What is left").

An idealised reader of two dialects' 100k-event captures (``gen_dialects.py``): split the
lines, decode each payload with the dialect's own one-step decoder (msgspec into typed
structures refusing any other shape), and keep the text in a list and each event's line number and
byte offset in ``array`` s, with no object per event. It keeps less than Streamscope (no end
offsets, times, flags, kinds or timeline events), reads only the commonest payload and
writes no report; it says what is left when the objects per event are gone. Against the floor (split, ``orjson.loads``, keep the text)
and ``inspect --json``, all three in turns, best of ``--repeat`` CPU times. Information only:
no target, exit 0.

    python -m bench ideal-columns [--repeat 5] [--quick]
"""

from __future__ import annotations

import argparse
import sys
from array import array
from itertools import accumulate, repeat
from operator import add

import gen_dialects
import kit  # noqa: F401  (puts the repository root on sys.path)
import parse_more
from kit.report import header, parse_args
from kit.table import Table, fmt_s, ratio

from app.domain.dialects.anthropic import fast as anthropic_fast
from app.domain.dialects.ollama import fast as ollama_fast
from app.domain.fastpath import REFUSED

# Streamscope's own one-step decoders (typed structures refusing any other shape).
_block_delta = anthropic_fast.FAST.decode
_line = ollama_fast.FAST.decode


Kept = tuple[list[str], "array[int]", "array[int]"]


def _lines(data: bytes) -> tuple[list[bytes], list[int]]:
    """The lines and where each starts (summed in C, as Streamscope's runs do)."""
    lines = data.split(b"\n")
    return lines, list(accumulate(map(add, map(len, lines), repeat(1)), initial=0))


def anthropic(data: bytes) -> Kept:
    """Each text delta's text, line number and byte offset."""
    texts: list[str] = []
    numbers: array[int] = array("q")
    starts: array[int] = array("q")
    lines, at = _lines(data)
    for number, line in enumerate(lines):
        if line[:6] != b"data: ":
            continue
        try:
            text = _block_delta(line[6:]).delta.text
        except REFUSED:
            continue
        if text is not None:
            texts.append(text)
            numbers.append(number)
            starts.append(at[number])
    return texts, numbers, starts


def ollama(data: bytes) -> Kept:
    """Each line's text, line number and byte offset."""
    texts: list[str] = []
    numbers: array[int] = array("q")
    starts: array[int] = array("q")
    lines, at = _lines(data)
    for number, line in enumerate(lines):
        if not line:
            continue
        try:
            message = _line(line).message
        except REFUSED:
            continue
        text = message.content if message else None
        if text:
            texts.append(text)
            numbers.append(number)
            starts.append(at[number])
    return texts, numbers, starts


READERS = {"anthropic-messages": anthropic, "ollama": ollama}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="best of N (default 5)")
    args = parse_args(parser, argv, {"repeat": 1})
    header(packages=["orjson", "msgspec"])
    table = Table("An idealised columnar reader against the floor (100k events, CPU time)")
    for name, reader in READERS.items():
        data = gen_dialects.ensure(name, 100_000).read_bytes()
        kept = reader(data)[0]
        assert "".join(kept) == "".join(gen_dialects.floor(name, data)), f"{name}: text differs"
        _, cpus = parse_more.interleaved(
            [
                lambda: gen_dialects.floor(name, data),  # noqa: B023 (called in this iteration)
                lambda: reader(data),  # noqa: B023
                lambda: parse_more.inspect_json(data),  # noqa: B023
            ],
            args.repeat,
        )
        floor, ideal, ours = (min(times) for times in cpus)
        table.row(f"{name}: floor", fmt_s(floor))
        table.row(f"{name}: idealised columnar reader", fmt_s(ideal), "floor", ratio(ideal, floor))
        table.row(f"{name}: inspect --json", fmt_s(ours), "floor", ratio(ours, floor))
    print(table.render())
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
