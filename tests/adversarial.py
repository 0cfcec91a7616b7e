"""Adversarial inputs for regular expressions, and how a cost grows with them.

A backtracking pattern that is slow on some input is slow on a short piece repeated: ``eyJ-``
for a JWT shape that rescans its run from every ``eyJ``, ``\\"`` for a string rule that never
closes. ``pumps`` builds such pieces from a pattern's own parts (its literal runs and the
members of its classes, alone, paired, and a literal beside a character) and the characters
that structure captures; ``worst_inputs`` keeps the ones that cost most on a small input;
``growth`` measures how the cost of one call grows when its input grows four times.

Costs are the calling thread's CPU time (``time.thread_time``), the least of a few runs: what
another process does to the machine moves them little, and a ratio of two costs measured
back to back is all that is judged. Linear work grows about 4 times; quadratic work, 16.

Used by tests/test_scrub_linear.py (each scrubbing pattern and each scrubber, a ratio) and by
bench/bench_caps.py (the scrubber's time per MB on the worst input, 40 KB to 5 MB).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

# What captures are made of: quotes, escapes, line breaks, blanks, the separators of URLs,
# headers and JSON, and word characters of each kind.
STRUCTURE = tuple(
    bytes([c]) for c in b'"\\\n\r \t:=&?/.-_aA0@,{[#;\'%+'
)  # fmt: skip
GROWTH = 4
LIMIT = 2 * 1024 * 1024  # the largest input a cost is measured on (the grown one: 4 times)
STEP_CHECK = 2  # a window growing this many times GROWTH or more is checked against the one below


def parts(pattern: re.Pattern[Any]) -> tuple[set[bytes], set[bytes]]:
    """The pattern's literal runs and one or two members of each of its classes."""
    literals: set[bytes] = set()
    chars: set[bytes] = set()

    def char(code: int) -> None:
        if code < 256:
            chars.add(bytes([code]))

    def walk(tree: Iterable[tuple[Any, Any]]) -> None:
        run = bytearray()
        for op, arg in tree:
            if op is sre.LITERAL:
                if arg < 256:
                    run.append(arg)
                continue
            if run:
                literals.add(bytes(run))
                run = bytearray()
            if op is sre.IN:
                for member, value in arg:
                    if member is sre.LITERAL:
                        char(value)
                    elif member is sre.RANGE:
                        char(value[0])
                        char(value[1])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
                walk(arg[2])
            elif op is sre.SUBPATTERN:
                walk(arg[3])
            elif op is sre.ATOMIC_GROUP:
                walk(arg)
            elif op is sre.BRANCH:
                for branch in arg[1]:
                    walk(branch)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                walk(arg[1])
        if run:
            literals.add(bytes(run))

    walk(sre_parse.parse(pattern.pattern, pattern.flags))
    return literals, chars


def pumps(pattern: re.Pattern[Any]) -> set[bytes]:
    """Short pieces that, repeated, are the worst inputs a pattern made of these parts has."""
    literals, chars = parts(pattern)
    small = set(STRUCTURE) | chars
    found = set(small) | {a + b for a in small for b in small}
    for literal in literals:
        found |= {literal} | {literal + c for c in small} | {c + literal for c in small}
    return found


def cost(call: Callable[[Any], object], data: Any, runs: int = 3) -> float:
    """The least CPU time of ``runs`` calls on ``data``, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()
        call(data)
        best = min(best, time.thread_time() - start)
    return best


def repeated(prefix: bytes, pump: bytes, size: int, suffix: bytes = b"") -> bytes:
    return prefix + pump * max(1, size // len(pump)) + suffix


@dataclass(frozen=True)
class Growth:
    pump: bytes
    size: int  # the smaller input, in bytes
    small: float  # its cost, seconds
    large: float  # the cost of the input GROWTH times larger

    @property
    def ratio(self) -> float:
        return self.large / max(self.small, 1e-9)


def growth(
    call: Callable[[Any], object],
    make: Callable[[int], Any],
    *,
    start: int = 4096,
    floor: float = 0.002,
) -> tuple[int, float, float]:
    """The size (from ``start``, doubled until one call costs ``floor`` seconds or the input
    reaches ``LIMIT``), its cost, and the cost of an input ``GROWTH`` times larger.

    When that window grows too fast, the one below it (a quarter of the size) is measured too,
    and the slower-growing of the two is kept: a cost that grows faster than its input does so
    in both, while a step does not. One was seen here: the string rule on ``\\"`` repeated costs
    11.6 ms at 512 KB, 57.5 ms at 1 MB and 108 ms at 2 MB (linear on each side of a step near
    1 MB), which a 256 KB to 1 MB window alone read as 15x."""
    size = start
    while True:
        small = cost(call, make(size))
        if small >= floor or size * GROWTH * 2 > LIMIT:
            break
        size *= 2
    large = cost(call, make(size * GROWTH))
    below = size // GROWTH
    if large / max(small, 1e-9) >= STEP_CHECK * GROWTH and below >= start:
        smaller = cost(call, make(below))
        if small / max(smaller, 1e-9) < large / max(small, 1e-9):
            return below, smaller, small
    return size, small, large


def worst_inputs(
    call: Callable[[Any], object],
    candidates: Iterable[bytes],
    make: Callable[[bytes, int], Any],
    keep: int = 4,
    size: int = 2048,
) -> list[bytes]:
    """The ``keep`` pumps that cost most, each repeated to ``size`` bytes."""
    scored = sorted(((cost(call, make(p, size), runs=1), p) for p in candidates), reverse=True)
    return [pump for _, pump in scored[:keep]]


def worst_growth(
    call: Callable[[Any], object],
    candidates: Iterable[bytes],
    make: Callable[[bytes, int], Any],
    keep: int = 4,
) -> Growth:
    """Of the costliest pumps, the one whose cost grows fastest."""
    found = []
    for pump in worst_inputs(call, candidates, make, keep):
        size, small, large = growth(call, partial(make, pump))
        found.append(Growth(pump, size, small, large))
    return max(found, key=lambda g: g.ratio)


def searched(pattern: re.Pattern[Any]) -> Callable[[Any], object]:
    """A search of the whole input, as a scrubber searches (every start is tried)."""

    def call(data: Any) -> object:
        for _ in pattern.finditer(data):
            pass
        return None

    return call


def as_text(pattern: re.Pattern[Any], data: bytes) -> Any:
    """``data`` as the pattern reads it (a str pattern reads Latin-1 text)."""
    return data if isinstance(pattern.pattern, bytes) else data.decode("latin-1")
