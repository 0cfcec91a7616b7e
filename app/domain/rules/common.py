"""What many rules do alike: report a wire fact the reading sighted, once where it was first
seen with how many times (``sighted``), or at each sighting kept (``each_sighted``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..findings.evidence import Evidence
from ..findings.model import Hit


def sighted(evidence: Evidence, fact: str, describe: Callable[[int, Any], str]) -> Iterator[Hit]:
    """One hit at the first sighting of ``fact``: ``describe(count, first value)`` says it."""
    sightings = evidence.sightings
    first = sightings.first(fact)
    if first is not None:
        count = sightings.count(fact)
        yield Hit(describe(count, first.value), first.raw, count)


def times(count: int, what: str) -> str:
    """``what``, with how often when more than once."""
    return what if count == 1 else f"{what} ({count} times)"


def each_sighted(evidence: Evidence, fact: str) -> Iterator[Hit]:
    """A hit per sighting kept of a fact whose value is its message (sightings.py), the last
    one standing also for the sightings past the samples."""
    sightings = evidence.sightings
    samples = sightings.samples(fact)
    rest = sightings.count(fact) - len(samples)
    for position, sample in enumerate(samples):
        last = position == len(samples) - 1
        message = str(sample.value)
        if last and rest > 0:
            yield Hit(f"{message} (and {rest} more like it)", sample.raw, rest + 1)
        else:
            yield Hit(message, sample.raw)
