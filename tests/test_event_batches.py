"""Events go to the player in batches of about ``BATCH_BYTES`` (wire.py): every event once,
in order, each batch under twice the size unless it is one event, and each event encoded
about once even when every event is large (logprobs)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app import wire
from app.domain.events import Event, Logprobs, TextDelta


def _logprobs(n: int, size: int) -> list[Event]:
    entry = orjson.dumps({"token": "x" * size, "logprob": -0.5, "bytes": [120], "top_logprobs": []})
    return [
        Logprobs(seq=i, raw=i, choice=0, field="content", count=1, entries=entry) for i in range(n)
    ]


@pytest.mark.parametrize(
    "events",
    [
        _logprobs(5000, 1000),  # ~1 KB each: 2000 of them are four times the batch
        [TextDelta(seq=i, raw=i, choice=0, text="ab") for i in range(5000)],
        _logprobs(3, 3 * wire.BATCH_BYTES),  # each one over the batch alone
    ],
)
def test_batches_hold_every_event_once_and_encode_each_about_once(
    events: list[Event], monkeypatch: Any
) -> None:
    encoded = []
    saved = wire._encoded

    def counting(batch: list[Event]) -> bytes:
        encoded.append(len(batch))
        return saved(batch)

    monkeypatch.setattr(wire, "_encoded", counting)
    texts = [orjson.dumps(b) for b in wire.event_batches(events, 2000)]
    assert sum(encoded) <= len(events) + 2000  # one batch encoded again, at most
    batches = [orjson.loads(text) for text in texts]
    assert [e["seq"] for batch in batches for e in batch] == list(range(len(events)))
    for batch, text in zip(batches, texts, strict=True):
        assert len(batch) <= 2000
        assert len(batch) == 1 or len(text) <= 2 * wire.BATCH_BYTES
