"""What a reading saw on the wire that its timeline does not keep: the evidence rules judge.

The timeline keeps what a stream means (text, tool calls, a finish, the usage). Some of what a
server sent is lost on the way: a usage object repeated unchanged on every chunk, a role on
every delta, a tool-call id sent again with each fragment. An interpreter notes such a fact
here as it reads it, by name, with the raw event it was in and a value; the rules
(app/domain/findings, docs/rules.md) decide whether it is wrong. A fact costs a count and,
for its first ``SAMPLES`` sightings, the raw event and value: nothing grows with the stream.
"""

from __future__ import annotations

from typing import Any, NamedTuple

SAMPLES = 8


class Sighting(NamedTuple):
    raw: int | None
    value: Any = None


class Sightings:
    """Counts and first sightings of named wire facts, for one stream."""

    __slots__ = ("_counts", "_samples")

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._samples: dict[str, list[Sighting]] = {}

    def note(self, fact: str, raw: int | None, value: Any = None) -> None:
        count = self._counts.get(fact, 0)
        self._counts[fact] = count + 1
        if count < SAMPLES:
            self._samples.setdefault(fact, []).append(Sighting(raw, value))

    def count(self, fact: str) -> int:
        return self._counts.get(fact, 0)

    def samples(self, fact: str) -> list[Sighting]:
        return self._samples.get(fact, [])

    def first(self, fact: str) -> Sighting | None:
        samples = self._samples.get(fact)
        return samples[0] if samples else None

    def __contains__(self, fact: object) -> bool:
        return fact in self._counts
