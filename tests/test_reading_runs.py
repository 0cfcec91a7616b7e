"""What the fast reading of a whole body rests on (docs/performance.md): the collector pause,
and orjson and msgspec writing the same values as the same bytes (app/domain/dialects/chat/run.py slices logprob
entries out of a canonical payload on that ground)."""

from __future__ import annotations

import gc
import json
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain import collector
from app.domain.dialects.chat import run as chat_run
from app.domain.events import Logprobs

from .test_fast_paths import FIRST, _decode, _decode_line_by_line, fast_paths_off, timeline

# Logprob entries as servers may write them: each is kept as sent, by every reading.
SENT_ENTRIES = [
    b'{"token":"a","logprob":-0.10,"bytes":[97],"top_logprobs":[]}',  # a trailing zero
    b'{"token":"\\u00e9","logprob":-1E-5,"bytes":[195,169],'
    b'"top_logprobs":[{"token":"\\/","logprob":-2,"bytes":[47]}]}',  # escapes, exponent
    b'{ "token" : "b" , "logprob" : -1.5 , "bytes" : null , "top_logprobs" : [ ] }',
    b'{"token":"c","logprob":-1,"token":"d","bytes":[100]}',  # a key sent twice
    b'{"token":"e","logprob":-0.5,"bytes":[101],"top_logprobs":[]}',
]
_HEAD = b'{"id":"c1","object":"chat.completion.chunk","model":"m1","choices":[{"index":0,'


OPENED = [b'"content":[', b'"content": [', b'"content":  [']  # the last: the one-step way
TAILS = [b"}]}", b',"finish_reason":null}]}', b'}],"usage":null}', b"} ] }"]
SPACED_TAILS = [b', "finish_reason": null}]}', b'}], "usage": null}']  # as json.dumps writes


def _scored(entries: bytes, tail: bytes = b"}]}", opened: bytes = OPENED[0]) -> bytes:
    return _HEAD + b'"delta":{"content":"x"},"logprobs":{' + opened + entries + b"]}" + tail


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(SENT_ENTRIES), min_size=1, max_size=3), max_size=6),
    st.sampled_from([b",", b" , "]),
    st.sampled_from(TAILS + SPACED_TAILS),
    st.sampled_from(OPENED),
)
def test_logprob_entries_are_kept_as_sent_by_every_reading(
    lists: list[list[bytes]], comma: bytes, tail: bytes, opened: bytes
) -> None:
    """The run (app/domain/dialects/chat/run.py), the one-step reading (app/domain/dialects/chat/fast.py) and the full reading
    (chunks.py) keep a chunk's entries byte for byte as sent, whatever their spacing, number
    forms, escapes or keys sent twice; the whole timelines agree."""
    sent = [comma.join(entries) for entries in lists]
    payloads = [FIRST, *(_scored(e, tail, opened) for e in sent)]
    data = b"".join(b"data: " + p + b"\n\n" for p in payloads)
    fast = timeline(data)
    with fast_paths_off():
        assert timeline(data) == fast
    events = read_capture(data).streams[0].events
    assert [e.entries for e in events if isinstance(e, Logprobs)] == sent


def test_the_run_slices_entries_as_sent() -> None:
    """The run itself (not a slower reading behind it) takes such a payload, written
    compactly or as Python's json.dumps writes it."""
    for entries in SENT_ENTRIES:
        for tail, opened in ((TAILS[1], OPENED[0]), (SPACED_TAILS[0], OPENED[1])):
            payload = _scored(entries, tail, opened)
            assert chat_run._entries(chat_run._decode_scored(payload), payload) == entries
    entry = {"token": "a", "logprob": -0.5, "bytes": [97], "top_logprobs": []}
    choice = {"index": 0, "delta": {"content": "a"}, "logprobs": {"content": [entry, entry]}}
    chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "m1", "choices": [choice]}
    payload = json.dumps(chunk).encode()
    sent = json.dumps([entry, entry]).encode()[1:-1]
    assert chat_run._entries(chat_run._decode_scored(payload), payload) == sent


def test_the_run_declines_a_payload_laid_out_otherwise() -> None:
    """Spaces in the closings or around the list, a field after the logprobs: the one-step
    reading takes it."""
    for payload in (
        _scored(SENT_ENTRIES[4], b"} ] }"),
        _scored(SENT_ENTRIES[4], opened=OPENED[2]),
        _HEAD + b'"logprobs":{"content":[' + SENT_ENTRIES[4] + b']},"delta":{"content":"x"}}]}',
    ):
        assert chat_run._entries(chat_run._decode_scored(payload), payload) is None


def test_entries_sent_over_several_lines_are_kept_on_one() -> None:
    """A data field spread over lines (the full reading): whitespace between tokens out."""
    entries = b'{"token":"a",\n"logprob":-0.10, "bytes":[97]}'
    data = b"data: " + FIRST + b"\n\ndata: " + _scored(entries).replace(b"\n", b"\ndata: ")
    events = read_capture(data + b"\n\n").streams[0].events
    assert [e.entries for e in events if isinstance(e, Logprobs)] == [
        b'{"token":"a","logprob":-0.10,"bytes":[97]}'
    ]


def test_the_collector_is_paused_while_reading_and_as_it_was_after() -> None:
    seen = []

    def feed(*args: object) -> None:
        seen.append(gc.isenabled())

    assert gc.isenabled()
    saved = chat_run._common_run
    chat_run._common_run = lambda *a: (feed(), saved(*a))[1]  # type: ignore[assignment]
    try:
        chunk = b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'
        read_capture(chunk * 3)
    finally:
        chat_run._common_run = saved
    assert seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()  # disabled before: left disabled
    finally:
        gc.enable()


def test_overlapping_pauses_end_with_the_last() -> None:
    first_in, second_out = threading.Event(), threading.Event()
    states = []

    def other() -> None:
        with collector.paused():
            first_in.set()
            second_out.wait(5)
        states.append(gc.isenabled())

    thread = threading.Thread(target=other)
    thread.start()
    first_in.wait(5)
    with collector.paused():
        pass
    states.append(gc.isenabled())  # the other read still holds the pause
    second_out.set()
    thread.join(5)
    assert states == [False, True]
    assert gc.isenabled()


@pytest.mark.slow  # a growth ratio over inputs up to megabytes
def test_runs_of_data_events_read_in_linear_time_whatever_breaks_them() -> None:
    """Data events broken up by other lines (a comment after each, an event line after
    seven) must not make the decoder look ahead over the rest of the block for every event
    (quadratic): four times the events cost about four times as much (at most eight)."""
    from app.domain import sse

    def cost(data: bytes) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            items = sse.SSEDecoder().feed(data)
            best = min(best, time.process_time() - start)
        assert items
        return best

    for piece in (b"data: x\n\n: c\n", b"data: x\n\n" * 7 + b"event: e\ndata: y\n\n"):
        small, large = cost(piece * 4000), cost(piece * 16000)
        assert large / small < 8, (piece, small, large)


RUN_PIECES = st.sampled_from(
    [
        b"event: ping\ndata: {}\n\n",
        b'event: delta\ndata: {"t":"a"}\n\n',
        b'event: delta\ndata: {"t":"bb"}\n\n',
        b"data: {}\n\n",
        b'data: {"t":"c"}\n\n',
        b"data:{}\n\n",
        b"event: delta\ndata:{}\n\n",
        b"event:delta\ndata: {}\n\n",
        b"event:  delta\ndata: {}\n\n",
        b"event: \xff\ndata: {}\n\n",
        b": c\n",
        b"id: 9\n",
        b"\n",
        b"event: delta\n",
        b"data: " + b"x" * 40 + b"\n\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(RUN_PIECES, min_size=1, max_size=60).map(b"".join), st.integers(1, 3))
def test_runs_of_events_read_as_line_by_line(data: bytes, reads: int) -> None:
    """Long runs of data events and of named events (sse_runs.py) give the items and
    diagnostics that reading each line on its own gives."""
    assert _decode(data, reads) == _decode_line_by_line(data, reads)
