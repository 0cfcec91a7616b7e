"""Hits from a wire fact an interpreter sighted with a message as its value (sightings.py):
one hit per sample kept, the last one standing also for the sightings past the samples."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings.evidence import Evidence
from ..findings.model import Hit


def sighted(evidence: Evidence, fact: str) -> Iterator[Hit]:
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
