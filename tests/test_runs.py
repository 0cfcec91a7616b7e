"""Runs of text deltas read as one (app/domain/runs.py): every dialect's final object and the
normalized outputs come out the same from the folded timeline as from the whole one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain import runs
from app.domain.dialects import DIALECTS, by_name
from app.domain.dialects.base import Dialect
from app.domain.events import (
    BlockStart,
    Event,
    Finish,
    Logprobs,
    Meta,
    ReasoningDelta,
    TextDelta,
    Usage,
)
from app.domain.normalize import normalized
from app.domain.runs import folded
from app.domain.stream import Source, Stream
from app.domain.summary import dialect_of, fold

CAPTURES = Path(__file__).resolve().parent / "captures"
FILES = sorted(
    p
    for p in [*CAPTURES.iterdir(), *(CAPTURES / "dialects").iterdir()]
    if p.is_file() and p.suffix != ".md"
)
PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture
def always_fold(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fold whatever the runs' length (folding otherwise waits for runs of MIN_RUN)."""
    monkeypatch.setattr(runs, "MIN_RUN", 0)
    yield


def as_json(value: Any) -> Any:
    """A final object as its JSON reads (logprob entries are orjson fragments)."""
    return orjson.loads(orjson.dumps(value))


def folded_for(events: list[Event], dialect: Dialect) -> list[Event]:
    """As summarize folds a timeline for the dialect."""
    return folded(events, only_last=Usage if dialect.usage_replaces else None)


def same_either_way(events: list[Event]) -> None:
    """Every dialect's final object and normalized outputs, folded and not (and, for one
    whose usage replaces the last, its usage as only the last)."""
    for dialect in DIALECTS:
        runs_of = folded_for(events, dialect)
        whole = dialect.assemble(events)
        assert as_json(dialect.assemble(list(runs_of))) == as_json(whole), dialect.name
        assert normalized(runs_of, dialect, whole) == normalized(events, dialect, whole)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_capture_assembles_the_same_folded(path: Path, always_fold: None) -> None:
    for stream in read_capture(path.read_bytes()).streams:
        dialect = dialect_of(stream)
        runs_of = folded_for(stream.events, dialect)
        whole = dialect.assemble(stream.events)
        assert as_json(dialect.assemble(list(runs_of))) == as_json(whole)
        assert normalized(runs_of, dialect, whole) == normalized(stream.events, dialect, whole)


@st.composite
def timelines(draw: st.DrawFn) -> list[Event]:
    """Text and reasoning deltas of a few targets, in runs, among the events that open and
    close what they go to."""
    out: list[Event] = [Meta(fields={"id": "x", "model": "m"})]
    for block in range(draw(st.integers(0, 2))):
        out.append(BlockStart(choice=0, block=block, type="text", value={"type": "text"}))
    for _ in range(draw(st.integers(0, 12))):
        choice = draw(st.sampled_from([0, 0, 1]))
        block = draw(st.sampled_from([None, 0, 1]))
        part = draw(st.sampled_from([None, None, "text", "break"]))
        texts = draw(st.lists(st.text(max_size=3), min_size=1, max_size=5))
        if draw(st.booleans()):
            out += [TextDelta(choice=choice, block=block, part=part, text=t) for t in texts]
        else:
            field = draw(st.sampled_from(["reasoning_content", "thinking", "thought", "tool_plan"]))
            out += [
                ReasoningDelta(choice=choice, block=block, part=part, field=field, text=t)
                for t in texts
            ]
        if draw(st.integers(0, 2)) == 0:  # now and then (with every chunk, for Gemini)
            usage: dict[str, Any] = {"output_tokens": len(out)}
            if draw(st.booleans()):  # keys some usages lack: merged and replaced differ
                usage[f"k{draw(st.integers(0, 2))}"] = draw(st.integers(0, 3))
            out.append(Usage(usage=usage))
    out.append(Finish(choice=0, reason="stop"))
    return out


@PROFILE
@given(timelines())
def test_every_dialect_assembles_the_same_folded(events: list[Event]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "MIN_RUN", 0)
        same_either_way(events)


def texts_by_target(events: Any) -> dict[tuple[Any, ...], str]:
    out: dict[tuple[Any, ...], str] = {}
    for e in events:
        if isinstance(e, TextDelta | ReasoningDelta):
            key = (type(e), e.choice, e.block, e.part, getattr(e, "field", None))
            out[key] = out.get(key, "") + e.text
    return out


def test_a_run_becomes_its_first_delta_with_the_run_text(always_fold: None) -> None:
    events: list[Event] = [
        Meta(seq=0, fields={}),
        *(TextDelta(seq=1 + i, raw=1 + i, choice=0, text=t) for i, t in enumerate("abcde")),
        TextDelta(seq=6, raw=6, choice=1, text="x"),
        *(TextDelta(seq=7 + i, raw=7 + i, choice=0, text=t) for i, t in enumerate("fgh")),
        Finish(seq=10, choice=0, reason="stop"),
    ]
    out = list(folded(events * 2))
    assert [type(e) for e in out] == [Meta, TextDelta, TextDelta, TextDelta, Finish] * 2
    assert [e.text for e in out if isinstance(e, TextDelta)] == ["abcde", "x", "fgh"] * 2
    assert [e.seq for e in out[:5]] == [0, 1, 6, 7, 10]  # each run's first delta
    assert texts_by_target(out) == texts_by_target(events * 2)


def test_interleaved_kinds_are_given_back_as_they_are() -> None:
    # Text and usage alternate (Gemini sends usage with every chunk): runs of one.
    events: list[Event] = []
    for i in range(50):
        events += [TextDelta(choice=0, text=str(i)), Usage(usage={"n": i})]
    assert folded(events) is events
    # Interleaved choices: one kind, runs of one.
    alternating: list[Event] = [TextDelta(choice=i % 2, text="t") for i in range(100)]
    assert list(folded(alternating)) == alternating


def test_usage_with_every_chunk_leaves_the_text_in_runs_where_it_replaces() -> None:
    """Gemini's running usage: the folds get one text delta and the last usage."""
    events: list[Event] = []
    for i in range(50):
        events += [TextDelta(choice=0, text=str(i)), Usage(usage={"n": i})]
    out = folded(events, only_last=Usage)
    assert [type(e) for e in out] == [TextDelta, Usage]
    assert out[0].text == "".join(map(str, range(50))) and out[1] is events[-1]
    assert [d.name for d in DIALECTS if d.usage_replaces] == ["gemini"]


def test_the_summary_folds_the_timeline_it_was_given_by_its_types() -> None:
    """``summary.fold`` hands the fold the events' types it took for the kinds present: with
    logprobs left out, those types are not the list's any more, and the fold must not use
    them (the usage kept would be the wrong one, and logprobs would come back)."""
    events: list[Event] = [Meta(fields={"responseId": "r"})]
    for i in range(40):
        events += [TextDelta(choice=0, text=str(i)), Usage(usage={"n": i})]
        events.append(Logprobs(choice=0, field="content", count=1, entries=b"{}"))
    stream = Stream(0, Source(), dialect=by_name("gemini"), events=events)
    without = [e for e in events if type(e) is not Logprobs]
    for with_logprobs, timeline in ((True, events), (False, without)):
        got = fold(stream, with_logprobs=with_logprobs)
        assert got.runs == folded(timeline, only_last=Usage)
        assert got.present == {Meta, TextDelta, Usage, Logprobs}
    assert fold(stream, with_logprobs=False).runs[-1] is events[-2]


def test_long_runs_fold_to_a_few_events() -> None:
    events: list[Event] = [Meta(fields={})]
    events += [TextDelta(choice=0, text="a") for _ in range(5000)]
    events += [ReasoningDelta(choice=0, field="thinking", text="r") for _ in range(5000)]
    events.append(Finish(choice=0, reason="stop"))
    out = list(folded(events))
    assert len(out) == 4
    assert texts_by_target(out) == texts_by_target(events)
    same_either_way(events)


def test_a_delta_of_another_part_starts_a_run(always_fold: None) -> None:
    # Chat completions: a delta sent as a typed content part ("part": "text") starts the
    # message's parts; the plain deltas before it are not in them.
    for part, field in (("text", "reasoning_content"), ("break", "reasoning_text")):
        events: list[Event] = [
            Meta(fields={"id": "x"}),
            TextDelta(choice=0, text="a"),
            TextDelta(choice=0, text="b", part=part),
            ReasoningDelta(choice=0, text="c", field=field),
            ReasoningDelta(choice=0, text="d", field=field, part=part),
            Finish(choice=0, reason="stop"),
        ]
        assert len(folded(events)) == len(events)
        same_either_way(events)
