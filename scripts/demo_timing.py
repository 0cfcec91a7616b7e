"""Synthesized network timing for the demo captures (used by ``make_demos.py``).

A source stream is cut into its SSE events; ``synthesize`` then draws, from a seeded ``Rand``,
when each network read arrives and which bytes it carries: the first read at the TTFT, log-normal
gaps between events, a few stalls, two events in one read now and then, and now and then one
event split across two reads in the middle of its data line. The reads always join to the
source bytes exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson


# ------------------------------------------------------------------------------ randomness
class Rand:
    """Seeded draws built only on ``random.random()``, whose sequence Python keeps stable."""

    def __init__(self, seed: int) -> None:
        self._r = random.Random(seed)

    def random(self) -> float:
        return self._r.random()

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self._r.random()

    def chance(self, p: float) -> bool:
        return self._r.random() < p

    def normal(self) -> float:  # Box-Muller
        u1 = max(self._r.random(), 1e-12)
        return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * self._r.random())

    def lognormal(self, median: float, sigma: float) -> float:
        return median * math.exp(sigma * self.normal())

    def choose(self, items: list[int], k: int) -> list[int]:
        pool = list(items)
        out: list[int] = []
        while pool and len(out) < k:
            out.append(pool.pop(int(self._r.random() * len(pool))))
        return sorted(out)


# ------------------------------------------------------------------------------ events
@dataclass
class Event:
    """One SSE event of a source stream: its exact bytes and what it carries."""

    data: bytes
    kind: str  # role, content, reasoning, tool, finish, usage, done, error, other
    choice: int | None = None


def split_events(body: bytes) -> list[Event]:
    """Cut a ``\\n\\n``-separated event stream into events; joined they give ``body`` back."""
    pieces = [p + b"\n\n" for p in body.split(b"\n\n")]
    pieces[-1] = pieces[-1][:-2]  # what follows the last blank line: an unterminated event
    if not pieces[-1]:
        pieces.pop()
    assert b"".join(pieces) == body
    return [Event(p, *classify(p)) for p in pieces]


def classify(event: bytes) -> tuple[str, int | None]:
    fields = dict(line.split(b": ", 1) for line in event.strip().split(b"\n") if b": " in line)
    payload = fields.get(b"data", b"")
    if payload == b"[DONE]":
        return "done", None
    chunk = orjson.loads(payload)
    if "error" in chunk or fields.get(b"event") == b"error":
        return "error", None
    if not chunk.get("choices"):
        return "usage", None
    choice = chunk["choices"][0]
    delta = choice.get("delta") or {}
    index = choice.get("index")
    if choice.get("finish_reason"):
        return "finish", index
    if delta.get("reasoning_content") or delta.get("reasoning"):
        return "reasoning", index
    if delta.get("tool_calls"):
        return "tool", index
    if delta.get("role"):
        return "role", index
    if delta.get("content") is not None:
        return "content", index
    return "other", index


# ------------------------------------------------------------------------------ timing
TOKEN_KINDS = ("content", "reasoning", "tool")
NO_CHOICES = ("usage", "done", "error")


@dataclass
class Profile:
    """How one demo's network timing is drawn (all times in ms)."""

    seed: int
    ttft: tuple[float, float]
    median_gap: float
    sigma: float = 0.4
    gap_range: tuple[float, float] = (4.0, 150.0)
    reasoning_factor: float = 1.0  # reasoning gaps are this times the content gaps
    stalls: int = 1
    stall_range: tuple[float, float] = (300.0, 900.0)
    coalesce_p: float = 0.05  # two events in one read
    split_p: float = 0.03  # one event over two reads
    utf8_split: bytes | None = None  # force one split inside this multi-byte character
    # (previous event, event) -> (low, high, chance of sharing a read), or None for a token gap
    special: Callable[[Event, Event], tuple[float, float, float] | None] | None = None


def common_special(prev: Event, event: Event) -> tuple[float, float, float] | None:
    if event.kind == "done":
        return 0.2, 3.0, 0.7
    if event.kind == "usage" and prev.kind == "finish":
        return 1.0, 25.0, 0.4
    if event.kind == "usage":
        return 2.0, 30.0, 0.2
    return None


def n_choices_special(prev: Event, event: Event) -> tuple[float, float, float] | None:
    """n=3: the choices of one decoding step leave the server together."""
    common = common_special(prev, event)
    if common:
        return common
    if prev.choice is not None and event.choice is not None:
        same_step = event.choice > prev.choice or (
            prev.kind == "role" and event.choice == prev.choice
        )
        if same_step:
            return 0.1, 2.5, 0.35
    return None


def reasoning_special(prev: Event, event: Event) -> tuple[float, float, float] | None:
    common = common_special(prev, event)
    if common:
        return common
    if prev.kind == "reasoning" and event.kind == "content":
        return 450.0, 900.0, 0.0  # the model closes its reasoning before answering
    return None


def error_special(prev: Event, event: Event) -> tuple[float, float, float] | None:
    if event.kind == "error":
        return 180.0, 420.0, 0.0  # the tool call is generated, then fails validation
    return common_special(prev, event)


def synthesize(events: list[Event], profile: Profile) -> tuple[list[tuple[float, bytes]], float]:
    """Network reads ``(t, bytes)`` for ``events`` and the end time; reads join to the events."""
    rng = Rand(profile.seed)
    special = profile.special or common_special
    n = len(events)
    token_ix = [i for i in range(2, n - 1) if events[i].kind in TOKEN_KINDS]
    stall_ix = set(rng.choose([i for i in token_ix if i > 4], profile.stalls))
    free = [i for i in token_ix if i not in stall_ix]
    split_ix = {i for i in free if rng.chance(profile.split_p)} or set(rng.choose(free, 1))
    free = [i for i in free if i not in split_ix and i - 1 not in split_ix]
    coal_ix = {i for i in free if rng.chance(profile.coalesce_p)} or set(rng.choose(free, 1))
    forced_split: dict[int, int] = {}
    if profile.utf8_split:
        i = next(i for i in free if profile.utf8_split in events[i].data)
        forced_split[i] = events[i].data.index(profile.utf8_split) + 1
        split_ix.add(i)
        coal_ix.discard(i)

    reads: list[list[Any]] = []  # [t, bytearray]
    t = round(rng.uniform(*profile.ttft), 3)
    reads.append([t, bytearray(events[0].data)])
    for i in range(1, n):
        prev, event = events[i - 1], events[i]
        rule = special(prev, event)
        if i in stall_ix:
            gap, share = rng.uniform(*profile.stall_range), 0.0
        elif rule is not None:
            gap, share = rng.uniform(rule[0], rule[1]), rule[2]
        else:
            median = profile.median_gap
            if event.kind == "reasoning":
                median *= profile.reasoning_factor
            gap = min(
                max(rng.lognormal(median, profile.sigma), profile.gap_range[0]),
                profile.gap_range[1],
            )
            share = 1.0 if i in coal_ix else 0.0
        if i in split_ix:
            at = forced_split.get(i) or split_point(event.data, rng)
            head, tail = event.data[:at], event.data[at:]
            if rng.chance(0.35):  # the head shares the previous read's segment
                reads[-1][1] += head
                t = round(t + gap, 3)
            else:
                t = round(t + gap, 3)
                reads.append([t, bytearray(head)])
                t = round(t + rng.uniform(1.5, 12.0), 3)
            reads.append([t, bytearray(tail)])
        elif share and rng.chance(share):
            reads[-1][1] += event.data
        else:
            t = round(t + gap, 3)
            reads.append([t, bytearray(event.data)])
    end = round(t + rng.uniform(0.5, 6.0), 3)
    return [(r[0], bytes(r[1])) for r in reads], end


def split_point(data: bytes, rng: Rand) -> int:
    """A byte offset inside the event's data line, not inside a UTF-8 character."""
    start = data.index(b"data: ") + len(b"data: ")
    end = data.index(b"\n", start)
    while True:
        at = int(rng.uniform(start + 8, end - 8))
        if not 0x80 <= data[at] <= 0xBF:
            return at


def event_times(events: list[Event], reads: list[tuple[float, bytes]]) -> list[float]:
    """When each event is complete: the time of the read that brings its last byte."""
    times, read_ix, read_end, event_end = [], 0, len(reads[0][1]), 0
    for event in events:
        event_end += len(event.data)
        while read_end < event_end:
            read_ix += 1
            read_end += len(reads[read_ix][1])
        times.append(reads[read_ix][0])
    return times
