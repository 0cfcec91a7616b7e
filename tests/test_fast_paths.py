"""The fast paths read exactly what the full reading reads: every capture of chunk variations
gives the same timeline (events, their JSON, raw events and their flags, diagnostics) with the
fast paths as without them (chat_fast.py, and the SSE decoder's one-line events)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain.dialects import chat, chat_fast
from app.report import render_json

PROFILE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ENTRY = {"token": "a", "logprob": -0.5, "bytes": [97], "top_logprobs": []}
TEXTS = st.sampled_from(["", "a", " word", "é\u2028", "\n", '"q"', "\\", "😀", None])
LOGPROBS = st.sampled_from(
    [
        None,
        {"content": [ENTRY], "refusal": None},
        {"content": [ENTRY, ENTRY]},
        {"content": [], "refusal": None},
        {"content": None},
        {},
        {"content": {"token": "a"}},
        {"content": [ENTRY], "refusal": [ENTRY]},
        {"content": "text"},
        [],
    ]
)
RAW_LOGPROBS = st.sampled_from(
    [
        b'{"content":[{"token":"a","logprob":1e400}]}',  # orjson refuses, msgspec skips
        b'{"content":[{"token":"\xff"}]}',  # invalid UTF-8 inside
        b'{"content":[ {"token" : "a"} ]}',  # spacing that re-serialising removes
        b'{"content":[{"logprob":-3.1433802e-05}]}',  # a float orjson writes otherwise
        b'{"content":[1e400]},"logprobs":null',  # the same key twice, the first refused
        b'{"content":[1e400]},"logprobs":{"content":[]}',
    ]
)


@st.composite
def chunks(draw: st.DrawFn) -> bytes:
    chunk: dict[str, Any] = {
        "id": draw(st.sampled_from(["c1", "c1", "c1", "c2", "", None])),
        "object": draw(st.sampled_from(["chat.completion.chunk"] * 4 + ["chat.completion", None])),
        "created": draw(st.sampled_from([1, 1.0, "BIG", "x"])),
        "model": draw(st.sampled_from(["m1", "m1", "m1", "m2", "", None, 5])),
    }
    for key in ("id", "object", "created", "model"):
        if chunk[key] is None and draw(st.booleans()):
            del chunk[key]
    if draw(st.booleans()):
        chunk["system_fingerprint"] = draw(st.sampled_from(["fp1", "fp2", None]))
    if draw(st.integers(0, 9)) == 0:
        chunk["usage"] = {"completion_tokens": 3}
    elif draw(st.booleans()):
        chunk["usage"] = None
    if draw(st.integers(0, 9)) == 0:
        chunk[draw(st.sampled_from(["x_extra", "error", "moderation"]))] = {"k": 1}
    choices = []
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 0]))):
        delta: dict[str, Any] = {}
        for key in ("content", "reasoning_content", "reasoning"):
            text = draw(TEXTS)
            if text is not None or draw(st.booleans()):
                delta[key] = text
        if draw(st.integers(0, 9)) == 0:
            delta[draw(st.sampled_from(["role", "refusal", "tool_calls", "x_delta"]))] = "x"
        choice: dict[str, Any] = {"index": draw(st.sampled_from([0, 0, 0, 1, True, -1, "BIG"]))}
        choice["delta"] = delta if draw(st.integers(0, 19)) else draw(st.sampled_from([None, 1]))
        logprobs = draw(LOGPROBS)
        if logprobs is not None or draw(st.booleans()):
            choice["logprobs"] = logprobs
        if draw(st.integers(0, 9)) == 0:
            choice["finish_reason"] = "stop"
        elif draw(st.booleans()):
            choice["finish_reason"] = None
        choices.append(choice)
    chunk["choices"] = choices
    data = orjson.dumps(chunk).replace(b'"BIG"', b"1" + b"0" * 25)  # past 64 bits
    if choices and draw(st.integers(0, 7)) == 0:  # a logprobs value as its text, raw
        raw = draw(RAW_LOGPROBS)
        data = data.replace(b'"index":', b'"logprobs":' + raw + b',"index":', 1)
    if draw(st.integers(0, 9)) == 0:
        data = b" " + data.replace(b",", b" ,\t", 2) + b" "
    return data


FIRST = b'{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}'


@st.composite
def captures(draw: st.DrawFn) -> bytes:
    payloads = [FIRST, *draw(st.lists(chunks(), min_size=1, max_size=12))]
    if draw(st.booleans()):
        payloads.append(b"[DONE]")
        if draw(st.booleans()):
            payloads.append(draw(chunks()))
    events = []
    for payload in payloads:
        head = draw(st.sampled_from([b"", b"", b"event: error\n", b"id: 7\n", b": note\n"]))
        events.append(head + b"data: " + payload + b"\n\n")
    return b"".join(events)


@contextmanager
def fast_paths_off() -> Iterator[None]:
    saved = chat.read_fast
    chat.read_fast = lambda it, raw, data: False  # type: ignore[assignment]
    try:
        yield
    finally:
        chat.read_fast = saved


def timeline(data: bytes) -> Any:
    capture = read_capture(data)
    streams = [
        (
            [e.to_json() for e in s.events],
            [(r.to_json(), r.choices, r.output, r.reasoning) for r in s.raw],
            s.dialect,
        )
        for s in capture.streams
    ]
    return orjson.dumps(streams), render_json(capture)


@PROFILE
@given(captures())
def test_chat_fast_path_reads_as_the_full_reading(data: bytes) -> None:
    fast = timeline(data)
    with fast_paths_off():
        full = timeline(data)
    assert fast == full


def test_the_fast_path_is_taken() -> None:
    """The property above compares something: plain chunks do go the fast way."""
    data = b"data: " + FIRST + b"\n\n"
    data += b'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
    taken = []
    saved = chat.read_fast

    def spy(it: Any, raw: Any, payload: bytes) -> bool:
        taken.append(saved(it, raw, payload))
        return taken[-1]

    chat.read_fast = spy  # type: ignore[assignment]
    try:
        capture = read_capture(data)
    finally:
        chat.read_fast = saved
    assert taken == [True]
    assert "hi" in [getattr(e, "text", None) for e in capture.streams[0].events]


@pytest.mark.parametrize(
    "payload",
    [
        b'{"id":"c1","choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[{"a":1e400}]}}]}',
        b'{"id":"c1","choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":["\xff"]}}]}',
        b'{"id":"c1","created":1e400,"choices":[{"index":0,"delta":{"content":"x"}}]}',
        b'{"id":"c1","created":100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000,"choices":[{"index":0,"delta":{"content":"x"}}]}',
        # A key sent twice: the last one counts, but orjson refuses the whole payload.
        b'{"id":"c1","choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[1e400]},"logprobs":null}]}',
        b'{"id":"c1","choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[1e400]},"logprobs":{"content":[]}}]}',
    ],
)
def test_what_orjson_refuses_is_refused_fast(payload: bytes) -> None:
    """msgspec skips a Raw without reading it as orjson would: those go the full way (where
    orjson refuses them and the lenient decoder says why)."""
    data = b"data: " + FIRST + b"\n\ndata: " + payload + b"\n\n"
    fast = timeline(data)
    with fast_paths_off():
        assert fast == timeline(data)
    assert chat_fast.read_fast is not None
