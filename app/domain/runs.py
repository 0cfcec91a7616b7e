"""A timeline read run by run: consecutive text deltas of one target as one delta
(docs/performance.md, "Text runs").

A 100k-chunk stream is mostly one run of text deltas, each appended to the same field of the
same object. The folds over a timeline (each dialect's ``assemble``, ``normalized``) do the
same thing for every delta of such a run, so they read the run once: ``folded`` gives each
run of text (or reasoning) deltas of one target as its first delta holding the run's text
joined. A target is what those folds key on: a text delta's choice, block and part; a
reasoning delta's, and its field. Appending the pieces one by one or their concatenation
once gives the same text, and nothing else of a run's later deltas is read (their ``seq``,
``raw`` and ``t`` are the timeline's, not the final object's).

The grouping runs in C (``itertools.groupby`` keyed by ``type`` and ``attrgetter``); Python
code runs once per run. A timeline whose kinds alternate (text and logprobs, text and usage)
has runs of one: ``folded`` gives it back as it is, judged on its first events (on a timeline
whose events lie apart in memory, a pass over all of them costs what folding would save).
Gemini's usage, sent with every chunk, need not break the runs: where each usage replaces the
last wherever it sits (``Dialect.usage_replaces``), the folds are given only the last one
(``only_last``), and its text comes in runs again.
"""

from __future__ import annotations

from itertools import compress, groupby, islice, repeat
from operator import attrgetter, is_not, ne
from typing import Any

import msgspec

from .events import Event, ReasoningDelta, TextDelta

# What a run's deltas share: the fields the folds read besides the text; read as one tuple
# (_TARGET) or one by one (_FIELDS).
TARGETS: dict[type, tuple[str, ...]] = {
    TextDelta: ("choice", "block", "part"),
    ReasoningDelta: ("choice", "block", "part", "field"),
}
_TARGET: dict[type, Any] = {kind: attrgetter(*names) for kind, names in TARGETS.items()}
_FIELDS: dict[type, Any] = {kind: tuple(map(attrgetter, names)) for kind, names in TARGETS.items()}
_TEXT = attrgetter("text")
# Folding pays when runs average this many events or more (otherwise the timeline as it is),
# judged on the first SAMPLE events.
MIN_RUN = 4
SAMPLE = 1024


def folded(
    events: list[Event],
    *,
    only_last: type[Event] | None = None,
    kinds: list[type] | None = None,
) -> list[Event]:
    """The events, each run of text or reasoning deltas of one target as one delta (module
    docstring); ``events`` itself when its runs are too short to be worth it. Of the events
    of kind ``only_last`` (one whose last replaces the others), only the last is kept;
    ``kinds``, when the caller has them, are the events' types, in order."""
    if only_last is not None:
        events = _last_of_kind(events, only_last, kinds)
    first = list(map(type, islice(events, SAMPLE)))
    if (sum(map(is_not, first, islice(first, 1, None))) + 1) * MIN_RUN > len(first):
        return events
    out: list[Event] = []
    for kind, group in groupby(events, type):
        target = _TARGET.get(kind)
        if target is None:
            out.extend(group)
            continue
        deltas = list(group)
        if _one_target(deltas, kind):
            out.append(_joined(deltas))
            continue
        targets = list(map(target, deltas))
        if (sum(map(ne, targets, islice(targets, 1, None))) + 1) * MIN_RUN > len(deltas):
            out.extend(deltas)  # interleaved choices or blocks: runs of one
            continue
        start = 0
        for _, run in groupby(targets):
            end = start + len(list(run))
            out.append(_joined(deltas[start:end]))
            start = end
    return out


def _last_of_kind(events: list[Event], kind: type[Event], kinds: list[type] | None) -> list[Event]:
    """The events without those of ``kind`` but the last: found from the end (a stream's last
    usage is near it), then a flag per event, in C (from ``kinds`` when given: the events
    lie apart in memory, and their types in one list)."""
    last = next((i for i in range(len(events) - 1, -1, -1) if type(events[i]) is kind), -1)
    if last < 0:
        return events
    keep = list(map(is_not, kinds if kinds is not None else map(type, events), repeat(kind)))
    keep[last] = True
    return list(compress(events, keep))


def _one_target(deltas: list[Event], kind: type) -> bool:
    """Whether the deltas share one target: each field has one value (a set per field costs
    less than a tuple per delta)."""
    return all(len(set(map(field, deltas))) == 1 for field in _FIELDS[kind])


def _joined(run: list[Event]) -> Event:
    """A run of deltas of one target as its first, holding their text joined."""
    if len(run) == 1:
        return run[0]
    return msgspec.structs.replace(run[0], text="".join(map(_TEXT, run)))
