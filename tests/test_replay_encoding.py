"""A capture's replay messages are encoded as the first viewer needs them, batch by batch, and
shared (replay.py): the first batch goes out before the rest is encoded, the summary after the
last batch, and viewers at the same time encode no batch twice."""

from __future__ import annotations

import threading
from typing import Any

from app import wire
from app.captures import read_capture
from app.services import replay
from app.services.sources import Loaded
from app.settings import load

CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk","model":"m",'
    b'"choices":[{"index":0,"delta":{"content":"%d"}}]}\n\n'
)


def _loaded(chunks: int) -> Loaded:
    data = b"".join(CHUNK % i for i in range(chunks))
    return Loaded("k", "t", read_capture(data), {"kind": "capture", "id": "k"})


def test_the_first_batch_is_sent_before_the_others_are_encoded(monkeypatch: Any) -> None:
    encoded: list[int] = []
    saved = wire._encoded
    monkeypatch.setattr(
        wire, "_encoded", lambda batch: (encoded.append(len(batch)), saved(batch))[1]
    )
    summaries = []
    saved_summary = wire.StreamEncoder.summary_message
    monkeypatch.setattr(
        wire.StreamEncoder,
        "summary_message",
        lambda self, stall: (summaries.append(len(encoded)), saved_summary(self, stall))[1],
    )
    settings = load({"data_dir": "/tmp/unused", "event_batch": 100})
    loaded = _loaded(1000)
    count = -(-len(loaded.capture.streams[0].events) // 100)  # batches of 100 events
    stream = replay.encoded_capture(loaded, settings).streams[0]
    batches = stream.batches()
    next(batches)
    assert encoded == [100]  # one batch encoded when the first one is sent
    rest = list(batches)
    assert len(rest) == count - 1 and summaries == []
    stream.summary()
    assert summaries == [count]  # the summary after the last batch
    again = [b.text for b in stream.batches()]
    assert again[1:] == [b.text for b in rest] and len(encoded) == count  # kept, not redone


def test_viewers_at_the_same_time_share_every_batch(monkeypatch: Any) -> None:
    encoded: list[int] = []
    saved = wire._encoded
    monkeypatch.setattr(
        wire, "_encoded", lambda batch: (encoded.append(len(batch)), saved(batch))[1]
    )
    settings = load({"data_dir": "/tmp/unused", "event_batch": 50})
    loaded = _loaded(2000)
    start = threading.Barrier(4)
    seen: list[list[str]] = []

    def viewer() -> None:
        start.wait(5)
        stream = replay.encoded_capture(loaded, settings).streams[0]
        seen.append([b.text for b in stream.batches()] + [stream.summary().text])

    threads = [threading.Thread(target=viewer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(seen) == 4 and all(texts == seen[0] for texts in seen)
    assert sum(encoded) == len(loaded.capture.streams[0].events)  # each event encoded once
