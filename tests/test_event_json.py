"""Events written out by hand for speed (TextDelta, ReasoningDelta) give exactly the JSON the
generic ``Event.to_json`` gives: the same keys in the same order, ``block`` left out while
unset (docs/timeline.md)."""

from __future__ import annotations

import orjson
import pytest

from app.domain.events import Event, ReasoningDelta, TextDelta


@pytest.mark.parametrize(
    "event",
    [
        TextDelta(seq=3, raw=2, t=1.5, choice=0, text="hi"),
        TextDelta(seq=3, raw=2, t=None, choice=1, text="hi", part="text", block=4),
        TextDelta(choice=0, text="", block=0),
        ReasoningDelta(seq=1, raw=0, t=2.0, choice=0, text="so", field="reasoning_content"),
        ReasoningDelta(choice=2, text="x", field="thinking", part="thinking", block=1),
    ],
)
def test_written_out_json_is_the_generic_json(event: Event) -> None:
    generic = Event.to_json(event)
    assert type(event).to_json is not Event.to_json
    assert orjson.dumps(event.to_json()) == orjson.dumps(generic)
