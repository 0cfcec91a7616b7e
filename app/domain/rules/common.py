"""What many rules do alike: report a wire fact the reading sighted, once, where it was first
seen, with how many times."""

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
    """``what`` with how often: "once" or "N times"."""
    return f"{what} once" if count == 1 else f"{what} {count} times"
