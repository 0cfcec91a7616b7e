"""What the fast reading of a whole body rests on (docs/performance.md): the collector pause,
and orjson and msgspec writing the same values as the same bytes (chat_run.py slices logprob
entries out of a canonical payload on that ground)."""

from __future__ import annotations

import gc
import threading

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain import collector
from app.domain.dialects import chat_run

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
