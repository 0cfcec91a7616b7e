"""The websocket session without a socket: list-backed fakes for send and receive."""

from __future__ import annotations

import contextlib
import json
from collections import deque

from app.captures import Limits
from app.demos import find
from app.protocol import VERSION
from app.services.frames import Prepared
from app.services.sources import Sources
from app.settings import load
from app.web.ws.session import Session


class FakeSocket:
    def __init__(self, *incoming: dict | str) -> None:
        self.incoming = deque(m if isinstance(m, str) else json.dumps(m) for m in incoming)
        self.sent: list[dict] = []

    def send(self, message: str | Prepared) -> None:
        self.sent.append(json.loads(message if isinstance(message, str) else message.text))

    def receive(self, timeout: float | None) -> str | None:
        if not self.incoming:
            raise ConnectionError("closed")  # the page went away
        return self.incoming.popleft()


def run(*incoming, settings=None) -> list[dict]:
    sock = FakeSocket(*incoming)
    session = Session(
        sock.send,
        sock.receive,
        Sources(Limits(), 64 << 20),
        settings or load({"data_dir": "/tmp/unused"}),
    )
    with contextlib.suppress(ConnectionError):
        session.run()
    return sock.sent


def types(messages: list[dict]) -> list[str]:
    return [m["type"] for m in messages]


def test_replay_sends_hello_capture_timeline_summary_end():
    sent = run({"type": "open", "source": {"demo": "seed-docs"}})
    assert sent[0] == {
        "type": "hello",
        "version": VERSION,
        "server": sent[0]["server"],
        "max_message": 65536,
        "max_raw_request": 500,
    }
    assert types(sent) == [
        "hello",
        "capture",
        "raw_meta",
        "events",
        "summary",
        "findings",
        "raw_meta",
        "events",
        "summary",
        "findings",
        "end",
    ]
    capture = sent[1]
    assert capture["format"] == "docs" and len(capture["streams"]) == 2
    events = [e for m in sent if m["type"] == "events" for e in m["events"]]
    texts = [e["text"] for e in events if e["kind"] == "text"]
    assert texts == ["This", " is", "This"]
    assert sent[-1] == {"type": "end", "reason": "complete"}
    summary = sent[4]
    assert summary["completion"]["choices"][0]["message"]["content"] == "This is"
    assert summary["completion"]["usage"]["total_tokens"] == 12


def test_events_are_batched_by_count():
    settings = load({"data_dir": "/tmp/unused", "event_batch": 10})
    sent = run({"type": "open", "source": {"demo": "plain-text"}}, settings=settings)
    batches = [m for m in sent if m["type"] == "events"]
    assert len(batches) > 10
    assert all(len(b["events"]) <= 10 for b in batches)
    seqs = [e["seq"] for b in batches for e in b["events"]]
    assert seqs == list(range(len(seqs)))


def test_raw_requests_are_answered_with_texts():
    sent = run(
        {"type": "open", "source": {"demo": "tool-calls-parallel"}},
        {"type": "raw_request", "stream": 0, "start": 2, "count": 3},
        {"type": "raw_request", "stream": 0, "start": 0, "count": 100000},
    )
    raws = [m for m in sent if m["type"] == "raw"]
    assert [item["index"] for item in raws[0]["items"]] == [2, 3, 4]
    assert raws[0]["items"][0]["text"].startswith("data: ")
    assert len(raws[1]["items"]) <= 500
    original = find("tool-calls-parallel").read_bytes()
    assert original  # texts come from the reads, the file is JSON Lines of reads
    assert all(item["text"] for item in raws[1]["items"])


def test_bad_messages_get_protocol_errors_not_exceptions():
    sent = run("not json")
    assert sent[-1]["type"] == "error" and sent[-1]["code"] == "bad_message"
    sent = run({"type": "open", "source": {"demo": "nope"}})
    assert sent[-1] == {"type": "error", "code": "no_demo", "message": "no demo named 'nope'"}
    sent = run(
        {"type": "open", "source": {"demo": "seed-docs"}},
        {"type": "raw_request", "stream": 9, "start": 0, "count": 1},
        {"type": "bogus"},
    )
    errors = [m for m in sent if m["type"] == "error"]
    assert [e["code"] for e in errors] == ["bad_message", "bad_message"]


def test_a_growing_or_renamed_capture_is_read_again_not_served_stale(tmp_path):
    # A recording still being written, or renamed, must not be replayed from an old cached copy
    # (nor its encoded messages).
    from app.storage import NewCapture, open_store

    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    record, token = store.add(
        NewCapture(data=b'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
                   title="first", format="sse", streams=1)
    )  # fmt: skip
    sources = Sources(Limits(), 64 << 20, store)
    first = sources.stored(record.id)
    assert sources.stored(record.id) is first  # unchanged: the cached copy
    store.append(record.id, b'data: {"choices":[{"index":0,"delta":{"content":"b"}}]}\n\n')
    grown = sources.stored(record.id)
    assert len(grown.capture.streams[0].raw) == len(first.capture.streams[0].raw) + 1
    store.update(record.id, token, title="renamed")
    assert sources.stored(record.id).title == "renamed"
    store.close()
