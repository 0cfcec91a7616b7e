"""What the fast reading of a whole body rests on (docs/performance.md): the collector pause,
and orjson and msgspec writing the same values as the same bytes (chat_run.py slices logprob
entries out of a canonical payload on that ground)."""

from __future__ import annotations

import gc
import threading
import time

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain import collector
from app.domain.dialects import chat_run

from .test_fast_paths import _decode, _decode_line_by_line

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(min_value=-1e16, max_value=1e16, exclude_min=True, exclude_max=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)
@given(JSON_VALUES)
def test_orjson_and_msgspec_write_a_value_alike(value: object) -> None:
    """Floats under 1e16 in size: from there on the two write exponents otherwise (below),
    so chat_run.py's logprobs are typed to stay under it."""
    assert msgspec.json.encode(value) == orjson.dumps(value)


def test_large_floats_are_written_otherwise_and_declined() -> None:
    assert (msgspec.json.encode(1e16), orjson.dumps(1e16)) == (b"1e16", b"1e+16")
    entry = b'{"token":"a","logprob":-1e16,"bytes":[97],"top_logprobs":[]}'
    payload = (
        b'{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
        b'"delta":{"content":"a"},"logprobs":{"content":[' + entry + b"]}}]}"
    )
    try:
        chat_run._decode_scored(payload)
    except msgspec.ValidationError:
        return
    raise AssertionError("a logprob of 1e16 was read the canonical way")


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
