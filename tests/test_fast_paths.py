"""The fast paths read exactly what the full reading reads: every capture of chunk variations
gives the same timeline (events, their JSON, raw events and their flags, diagnostics) with the
fast paths as without them (app/domain/dialects/chat/fast.py, and the SSE decoder's one-line events)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain.dialects import DIALECTS
from app.domain.dialects.chat import fast as chat_fast
from app.domain.dialects.chat import interpreter as chat
from app.domain.dialects.chat import run as chat_run
from app.domain.dialects.completions import interpreter as completions
from app.domain.interpret import PayloadInterpreter
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


def _mutations() -> list[tuple[str, Any]]:
    """Ways a chunk can leave the common shape (or stay in it): (where, value)."""
    return [
        ("id", "c2"),
        ("id", ""),
        ("id", None),
        ("id", 7),
        ("object", "chat.completion"),
        ("object", None),
        ("created", 1.0),
        ("created", "BIG"),
        ("created", "x"),
        ("model", "m2"),
        ("model", ""),
        ("model", None),
        ("model", 5),
        ("system_fingerprint", "fp2"),
        ("system_fingerprint", None),
        ("service_tier", "flex"),
        ("usage", {"completion_tokens": 3}),
        ("usage", None),
        ("x_extra", {"k": 1}),
        ("error", {"message": "boom"}),
        ("moderation", {"k": 1}),
        ("choices", []),
        ("choices", None),
        ("choice.index", 1),
        ("choice.index", True),
        ("choice.index", -1),
        ("choice.index", "BIG"),
        ("choice.delta", None),
        ("choice.delta", 1),
        ("choice.delta", {}),
        ("choice.finish_reason", "stop"),
        ("choice.message", {"content": "m"}),
        ("choice.text", "t"),
        ("choice.x_choice", 1),
        ("choice.twice", None),
        ("delta.role", "assistant"),
        ("delta.refusal", "no"),
        ("delta.tool_calls", [{"index": 0, "function": {"arguments": "{"}}]),
        ("delta.x_delta", "x"),
        ("delta.content", [{"type": "text", "text": "part"}]),
        ("raw", None),
        ("spaces", None),
    ]


MUTATIONS = _mutations()


@st.composite
def chunks(draw: st.DrawFn) -> bytes:
    """The common chunk shape, with up to two mutations (``MUTATIONS``)."""
    chunk: dict[str, Any] = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m1",
        "system_fingerprint": "fp1",
    }
    delta: dict[str, Any] = {}
    for key in ("content", "reasoning_content", "reasoning"):
        text = draw(TEXTS)
        if text is not None or draw(st.booleans()):
            delta[key] = text
    choice: dict[str, Any] = {"index": 0, "delta": delta}
    logprobs = draw(LOGPROBS)
    if logprobs is not None or draw(st.booleans()):
        choice["logprobs"] = logprobs
    if draw(st.booleans()):
        choice["finish_reason"] = None
    chunk["choices"] = [choice]
    raw_logprobs = None
    spaced = False
    for where, value in draw(st.lists(st.sampled_from(MUTATIONS), max_size=2)):
        if where == "raw":
            raw_logprobs = draw(RAW_LOGPROBS)
        elif where == "spaces":
            spaced = True
        elif where == "choice.twice":
            chunk["choices"] = [choice, dict(choice)]
        elif where.startswith("choice."):
            choice[where[7:]] = value
        elif where.startswith("delta."):
            delta[where[6:]] = value
        else:
            chunk[where] = value
    data = orjson.dumps(chunk).replace(b'"BIG"', b"1" + b"0" * 25)  # past 64 bits
    if raw_logprobs is not None:  # a logprobs value as its text, raw
        data = data.replace(b'"index":', b'"logprobs":' + raw_logprobs + b',"index":', 1)
    if spaced:
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


@st.composite
def plain_chunks(draw: st.DrawFn) -> bytes:
    """The chunk the run of common chunks reads (read_run): text or reasoning, no logprobs,
    the identity of FIRST (or a new fingerprint, model or id, which it leaves to the full
    reading)."""
    chunk: dict[str, Any] = {"id": "c1", "object": "chat.completion.chunk", "model": "m1"}
    for key, value in draw(st.lists(st.sampled_from(IDENTITY), max_size=1)):
        chunk[key] = value
    delta = {"content": draw(TEXTS)}
    if draw(st.integers(0, 4)) == 0:
        delta[draw(st.sampled_from(["reasoning_content", "reasoning"]))] = draw(TEXTS)
    choice = {"index": draw(st.sampled_from([0, 0, 0, 1])), "delta": delta}
    if draw(st.booleans()):
        choice["logprobs"] = None
    chunk["choices"] = [choice]
    return orjson.dumps(chunk)


IDENTITY = [
    ("system_fingerprint", "fp1"),
    ("model", "m2"),
    ("id", "c2"),
    ("id", None),
    ("created", 1),
    ("usage", None),
]


@st.composite
def plain_captures(draw: st.DrawFn) -> bytes:
    """Mostly common chunks, a few of any kind, in one body (read as runs)."""
    kinds = st.one_of(plain_chunks(), plain_chunks(), plain_chunks(), chunks())
    payloads = [FIRST, *draw(st.lists(kinds, min_size=1, max_size=16))]
    if draw(st.booleans()):
        payloads.insert(draw(st.integers(1, len(payloads))), b"[DONE]")
    events = []
    for payload in payloads:
        head = draw(st.sampled_from([b"", b"", b"", b"event: error\n", b"id: 7\n", b": note\n"]))
        tail = draw(st.sampled_from([b"\n\n", b"\n\n", b"\n\n", b"\r\n\r\n"]))
        events.append(head + b"data: " + payload + tail)
    return b"".join(events)


@contextmanager
def fast_paths_off() -> Iterator[None]:
    """Every payload read the full way: chat's fast reader refuses, the dialects have none,
    and the runs of chat and completions are read by the generic loop."""
    saved, saved_run, saved_completions = chat.read_fast, chat.read_run, completions.read_run
    fast = {d.interpreter: d.interpreter.fast for d in DIALECTS if d.interpreter.fast is not None}
    chat.read_fast = lambda it, raw, data: False  # type: ignore[assignment]
    chat.read_run = lambda it, *run: PayloadInterpreter.run(it, *run)  # type: ignore[assignment]
    completions.read_run = lambda it, *run: PayloadInterpreter.run(it, *run)  # type: ignore[assignment]
    for cls in fast:
        cls.fast = None
    try:
        yield
    finally:
        chat.read_fast, chat.read_run = saved, saved_run
        completions.read_run = saved_completions
        for cls, path in fast.items():
            cls.fast = path


def timeline(data: bytes) -> Any:
    capture = read_capture(data)
    streams = [
        (
            [e.to_json() for e in s.events],
            [(r.to_json(), r.choices, r.output, r.reasoning) for r in s.raw],
            s.dialect_name,
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


@PROFILE
@given(plain_captures())
def test_chat_runs_read_as_the_full_reading(data: bytes) -> None:
    fast = timeline(data)
    with fast_paths_off():
        full = timeline(data)
    assert fast == full


def test_fast_paths_are_on_again() -> None:
    with fast_paths_off():
        pass
    assert all(d.interpreter.fast is not None for d in DIALECTS if d.name == "anthropic-messages")
    assert chat.read_fast is chat_fast.read_fast
    assert chat.read_run is chat_run.read_run


def test_the_fast_path_is_taken() -> None:
    """The property above compares something: plain chunks do go the fast ways. In a body,
    the run of common chunks (``read_run``) reads the plain one itself and leaves the others
    to ``it.payload``, whose one-step reading (``read_fast``) takes the one with logprobs."""
    plain = b'{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}'
    scored = plain.replace(b'"hi"}', b'"lp"},"logprobs":{"content":[' + orjson.dumps(ENTRY) + b"]}")
    data = b"".join(b"data: " + p + b"\n\n" for p in (FIRST, plain, scored))
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
    assert taken == [True]  # the one with logprobs (FIRST named the dialect)
    texts = [getattr(e, "text", None) for e in capture.streams[0].events]
    assert "hi" in texts and "lp" in texts


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


SSE_PIECES = st.sampled_from(
    [
        b"event: ping\ndata: {}\n\n",
        b"event: e\ndata:{}\n\n",
        b"data: {}\n\n",
        b"data:x\n\n",
        b"data: {}\n",
        b"data:{}\n",
        b"data: x\n",
        b"data:\n",
        b"event: ping\n",
        b"event:e\n",
        b"event: \xff\n",
        b"id: 1\n",
        b": c\n",
        b"\n",
        b"\n\n",
        b"retry: 5\n",
        b"x\n",
        b"data: " + b"a" * 40 + b"\n",
        b"event: " + b"b" * 40 + b"\n",
    ]
)


def _decode(data: bytes, reads: int) -> Any:
    from app.domain.sse import SSEDecoder

    decoder = SSEDecoder(max_line=32)
    step = max(1, len(data) // reads)
    items = []
    for start in range(0, len(data), step):
        items += decoder.feed(data[start : start + step], 1.0)
    items += decoder.close(2.0)
    return [
        (i.raw.to_json(), i.data, i.comment, i.data_offset) for i in items
    ], decoder.take_notes()


@PROFILE
@given(st.lists(SSE_PIECES, max_size=30).map(b"".join), st.integers(1, 4))
def test_sse_one_step_events_read_as_line_by_line(data: bytes, reads: int) -> None:
    """The decoder's one-step events (a data line, or an event and a data line, then a blank
    line) give the items and diagnostics that reading each line on its own gives."""
    assert _decode(data, reads) == _decode_line_by_line(data, reads)


def _decode_line_by_line(data: bytes, reads: int) -> Any:
    """``_decode`` with every line read on its own (``FieldDecoder.line``): the reference."""
    from app.domain import sse_fields

    def line_by_line(self: Any, lines: list[bytes], t: float | None, out: list[Any]) -> None:
        for line in lines:
            self.line(line, 1, t, out)

    saved = sse_fields.FieldDecoder.lines
    sse_fields.FieldDecoder.lines = line_by_line  # type: ignore[method-assign]
    try:
        return _decode(data, reads)
    finally:
        sse_fields.FieldDecoder.lines = saved


DELETE = object()  # a mutation that takes the key out


def _set(value: dict[str, Any], where: str, change: Any) -> None:
    """``where`` is a dotted path into the payload ("delta.text")."""
    *path, last = where.split(".")
    for key in path:
        value = value.get(key)  # type: ignore[assignment]
        if not isinstance(value, dict):
            return
    if change is DELETE:
        value.pop(last, None)
    else:
        value[last] = change


@st.composite
def mutated(
    draw: st.DrawFn,
    base: dict[str, Any],
    event: bytes | None,
    mutations: list[tuple[str, Any]],
    done: bytes,
) -> bytes:
    """One event of a dialect's common shape with up to two mutations: a field changed
    (dotted path), or one of "event" (the SSE event name), "done" (the stream said it was
    over just before), "twice" (a key sent twice, the last one counting), "spaces"."""
    value = orjson.loads(orjson.dumps(base))
    before, twice, spaced = b"", False, False
    for where, change in draw(st.lists(st.sampled_from(mutations), max_size=2)):
        if where == "event":
            event = change
        elif where == "done":
            before = done
        elif where == "twice":
            twice = True
        elif where == "spaces":
            spaced = True
        else:
            _set(value, where, change)
    data = orjson.dumps(value).replace(b'"BIG"', b"1" + b"0" * 25)
    if twice:
        data = b'{"type":"x",' + data[1:]
    if spaced:
        data = data.replace(b",", b" , ") + b"   "
    head = b"event: " + event + b"\n" if event is not None else b""
    return before + head + b"data: " + data + b"\n\n"


COMMON_MUTATIONS: list[tuple[str, Any]] = [
    ("event", b"error"),
    ("event", b"ping"),
    ("event", None),
    ("done", None),
    ("twice", None),
    ("spaces", None),
    ("type", None),
    ("type", "ping"),
    ("extra", 1),
    ("index", 1),
    ("index", 2),
    ("index", -1),
    ("index", True),
    ("index", "0"),
    ("index", "BIG"),
    ("index", DELETE),
    ("type", DELETE),
]


def same_with_and_without(data: bytes) -> None:
    fast = timeline(data)
    with fast_paths_off():
        full = timeline(data)
    assert fast == full


ANTHROPIC_START = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message",'
    b'"role":"assistant","model":"claude","content":[],"usage":{"input_tokens":1}}}\n\n'
    b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"text","text":""}}\n\n'
    b'event: content_block_start\ndata: {"type":"content_block_start","index":1,'
    b'"content_block":{"type":"thinking","thinking":""}}\n\n'
)
ANTHROPIC_MUTATIONS: list[tuple[str, Any]] = [
    ("index", 1),
    ("index", 2),
    ("index", -1),
    ("index", True),
    ("index", "0"),
    ("index", "BIG"),
    ("type", "content_block_stop"),
    ("type", "ping"),
    ("type", None),
    ("extra", 1),
    ("delta.type", "thinking_delta"),
    ("delta.type", "input_json_delta"),
    ("delta.type", "signature_delta"),
    ("delta.type", "x_delta"),
    ("delta.text", None),
    ("delta.text", 5),
    ("delta.text", ""),
    ("delta.thinking", "hmm"),
    ("delta.thinking", None),
    ("delta.extra", 1),
    ("delta", "text"),
    ("event", b"error"),
    ("event", b"ping"),
    ("event", None),
    ("stop", None),
    ("twice", None),
    ("spaces", None),
]


@st.composite
def anthropic_events(draw: st.DrawFn) -> bytes:
    value: dict[str, Any] = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": draw(TEXTS.filter(lambda t: t is not None))},
    }
    event: bytes | None = b"content_block_delta"
    stop, twice, spaced = False, False, False
    for where, change in draw(st.lists(st.sampled_from(ANTHROPIC_MUTATIONS), max_size=2)):
        if where == "event":
            event = change
        elif where == "stop":
            stop = True
        elif where == "twice":
            twice = True
        elif where == "spaces":
            spaced = True
        elif where.startswith("delta.") and isinstance(value["delta"], dict):
            value["delta"][where[6:]] = change
        else:
            value[where] = change
    data = orjson.dumps(value).replace(b'"BIG"', b"1" + b"0" * 25)
    if twice:  # a key sent twice: the last one counts
        data = data.replace(
            b'{"type":"content_block_delta"', b'{"type":"ping","type":"content_block_delta"', 1
        )
    if spaced:
        data = data.replace(b",", b" , ") + b"   "
    head = b"event: " + event + b"\n" if event is not None else b""
    out = head + b"data: " + data + b"\n\n"
    if stop:
        out = b'event: message_stop\ndata: {"type":"message_stop"}\n\n' + out
    return out


@PROFILE
@given(st.lists(anthropic_events(), min_size=1, max_size=10))
def test_anthropic_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    data = ANTHROPIC_START + b"".join(events)
    fast = timeline(data)
    with fast_paths_off():
        full = timeline(data)
    assert fast == full


COHERE_START = (
    b'event: message-start\ndata: {"id":"c1","type":"message-start","delta":{"message":'
    b'{"role":"assistant","content":[]}}}\n\n'
    b'event: content-start\ndata: {"type":"content-start","index":0,"delta":{"message":'
    b'{"content":{"type":"text","text":""}}}}\n\n'
    b'event: content-start\ndata: {"type":"content-start","index":1,"delta":{"message":'
    b'{"content":{"type":"thinking","thinking":""}}}}\n\n'
)
COHERE_DELTA = {"type": "content-delta", "index": 0, "delta": {"message": {"content": {}}}}
COHERE_MUTATIONS = [
    *COMMON_MUTATIONS,
    ("type", "content-end"),
    ("delta.message.content.text", "hi"),
    ("delta.message.content.text", ""),
    ("delta.message.content.text", None),
    ("delta.message.content.text", 5),
    ("delta.message.content.thinking", "hmm"),
    ("delta.message.content.thinking", 5),
    ("delta.message.content.extra", 1),
    ("delta.message.extra", 1),
    ("delta.message", None),
    ("logprobs", [{"token_ids": [1]}]),
]


@PROFILE
@given(
    st.lists(
        mutated(
            COHERE_DELTA | {"delta": {"message": {"content": {"text": "a"}}}},
            b"content-delta",
            COHERE_MUTATIONS,
            b'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"COMPLETE"}}\n\ndata: [DONE]\n\n',
        ),
        min_size=1,
        max_size=10,
    )
)
def test_cohere_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    same_with_and_without(COHERE_START + b"".join(events))


COMPLETION = {
    "id": "cmpl-1",
    "object": "text_completion",
    "created": 1,
    "choices": [{"text": "a", "index": 0, "logprobs": None, "finish_reason": None}],
    "model": "m1",
    "usage": None,
}
COMPLETIONS_MUTATIONS = [
    *[(w, c) for w, c in COMMON_MUTATIONS if w not in ("index", "type")],
    ("id", "cmpl-2"),
    ("id", ""),
    ("id", None),
    ("id", DELETE),
    ("object", DELETE),
    ("usage", DELETE),
    ("object", "chat.completion.chunk"),
    ("object", None),
    ("created", 2),
    ("created", 1.0),
    ("created", "BIG"),
    ("model", "m2"),
    ("model", None),
    ("system_fingerprint", "fp"),
    ("usage", {"completion_tokens": 1}),
    ("choices", []),
    ("choices", [{"text": "b", "index": 1}, {"text": "", "index": 0}]),
    ("choices", [{"text": "b", "index": -1}]),
    ("choices", [{"text": "b", "index": True}]),
    ("choices", [{"text": 5, "index": 0}]),
    ("choices", [{"text": "b", "index": 0, "finish_reason": "length"}]),
    ("choices", [{"text": "b", "index": 0, "logprobs": {"tokens": ["b"]}}]),
    ("choices", [{"text": "b", "index": 0, "x": 1}]),
    ("choices", [{"delta": {"content": "b"}, "index": 0}]),
]


@PROFILE
@given(
    st.lists(
        mutated(COMPLETION, None, COMPLETIONS_MUTATIONS, b"data: [DONE]\n\n"),
        min_size=1,
        max_size=10,
    )
)
def test_completions_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    first = b"data: " + orjson.dumps(COMPLETION) + b"\n\n"
    same_with_and_without(first + b"".join(events))


GEMINI_CHUNK: dict[str, Any] = {
    "candidates": [{"content": {"parts": [{"text": "a"}], "role": "model"}, "index": 0}],
    "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 1},
    "modelVersion": "gemini-x",
    "responseId": "r1",
}
GEMINI_MUTATIONS: list[tuple[str, Any]] = [
    *[(w, c) for w, c in COMMON_MUTATIONS if w not in ("index", "type")],
    ("modelVersion", "gemini-y"),
    ("modelVersion", None),
    ("responseId", "r2"),
    ("createTime", "2025-01-01"),
    ("usageMetadata", {"promptTokenCount": 9, "candidatesTokenCount": 2}),
    ("usageMetadata", {"promptTokenCount": 9, "candidatesTokenCount": 1}),
    ("usageMetadata", {"promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}]}),
    ("usageMetadata", {"promptTokenCount": 1.5}),
    ("usageMetadata", {"promptTokenCount": "BIG"}),
    ("usageMetadata", {"promptTokenCount": True}),
    ("usageMetadata", None),
    ("usageMetadata", DELETE),
    ("usageMetadata", [1]),
    ("candidates", DELETE),
    ("promptFeedback", {"blockReason": "SAFETY"}),
    ("error", {"message": "boom"}),
    ("candidates", []),
    ("candidates", None),
    (
        "candidates",
        [
            {"content": {"parts": [{"text": "a"}]}, "index": 0},
            {"content": {"parts": [{"text": "b"}]}, "index": 1},
        ],
    ),
    ("candidates", [{"content": {"parts": [{"text": "a"}, {"text": "b"}]}, "index": 0}]),
    ("candidates", [{"content": {"parts": [{"text": "t", "thought": True}]}, "index": 0}]),
    ("candidates", [{"content": {"parts": [{"text": "t", "thought": False}]}, "index": 0}]),
    ("candidates", [{"content": {"parts": [{"text": "t", "thoughtSignature": "s"}]}}]),
    ("candidates", [{"content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]}}]),
    ("candidates", [{"content": {"parts": [{"text": ""}]}, "index": None}]),
    ("candidates", [{"content": {"parts": [{"text": 5}]}, "index": 0}]),
    ("candidates", [{"content": {"parts": [{"text": "a"}]}, "index": 2}]),
    ("candidates", [{"content": {"parts": [{"text": "a"}]}, "index": True}]),
    ("candidates", [{"content": {"parts": [{"text": "a"}]}, "index": "BIG"}]),
    ("candidates", [{"content": {"parts": [{"text": "a"}]}, "finishReason": "STOP"}]),
    ("candidates", [{"content": {"parts": [{"text": "a"}]}, "safetyRatings": []}]),
    ("candidates", [{"content": [{"text": "a"}], "index": 0}]),
    ("candidates", [{"content": {"parts": [{"text": "a"}], "x": 1}, "index": 0}]),
]


@PROFILE
@given(
    st.lists(
        mutated(GEMINI_CHUNK, None, GEMINI_MUTATIONS, b""),
        min_size=1,
        max_size=10,
    )
)
def test_gemini_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    first = b"data: " + orjson.dumps(GEMINI_CHUNK) + b"\n\n"
    same_with_and_without(first + b"".join(events))


RESPONSES_START = (
    b'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1",'
    b'"object":"response","status":"in_progress","output":[]}}\n\n'
    b'event: response.output_item.added\ndata: {"type":"response.output_item.added",'
    b'"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}\n\n'
    b'event: response.content_part.added\ndata: {"type":"response.content_part.added",'
    b'"item_id":"msg_1","output_index":0,"content_index":0,'
    b'"part":{"type":"output_text","text":"","annotations":[]}}\n\n'
)
RESPONSES_DELTA: dict[str, Any] = {
    "type": "response.output_text.delta",
    "item_id": "msg_1",
    "output_index": 0,
    "content_index": 0,
    "delta": "a",
}
RESPONSES_MUTATIONS: list[tuple[str, Any]] = [
    *[(w, c) for w, c in COMMON_MUTATIONS if w not in ("index",)],
    ("type", "response.refusal.delta"),
    ("type", "response.reasoning_summary_text.delta"),
    *[("sequence_number", n) for n in (3, 4, 5, 9)],
    ("sequence_number", None),
    ("sequence_number", 4.0),
    ("sequence_number", "BIG"),
    ("output_index", 1),
    ("output_index", -1),
    ("output_index", True),
    ("output_index", "0"),
    ("content_index", None),
    ("content_index", 1),
    ("content_index", -1),
    ("delta", ""),
    ("delta", None),
    ("delta", DELETE),
    ("output_index", DELETE),
    ("content_index", DELETE),
    ("delta", 5),
    ("logprobs", []),
    ("logprobs", [{"token": "a", "logprob": -1.0, "bytes": [97], "top_logprobs": []}]),
    ("logprobs", {}),
    ("obfuscation", "xyz"),
    ("item_id", None),
]


@PROFILE
@given(
    st.lists(
        mutated(
            RESPONSES_DELTA,
            b"response.output_text.delta",
            RESPONSES_MUTATIONS,
            b'event: response.completed\ndata: {"type":"response.completed","response":'
            b'{"id":"resp_1","status":"completed","output":[]}}\n\n',
        ),
        min_size=1,
        max_size=10,
    )
)
def test_responses_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    # Each part's text done: compared with the deltas kept for that part (a note if not).
    done = b"".join(
        b"event: response.output_text.done\ndata: "
        + orjson.dumps(
            {
                "type": "response.output_text.done",
                "output_index": 0,
                "content_index": part,
                "text": "a",
            }
        )
        + b"\n\n"
        for part in (0, 1)
    )
    same_with_and_without(RESPONSES_START + b"".join(events) + done)


def _lines(events: list[bytes]) -> bytes:
    """``mutated`` events as JSON Lines (the SSE framing taken off)."""
    return b"".join(
        line[6:] + b"\n" for event in events for line in event.split(b"\n") if line[:5] == b"data:"
    )


OLLAMA_LINE: dict[str, Any] = {
    "model": "llama3",
    "created_at": "2024-05-24T20:26:46.294874Z",
    "message": {"role": "assistant", "content": "a"},
    "done": False,
}
OLLAMA_DONE = b'data: {"model":"llama3","created_at":"x","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"eval_count":3}\n\n'
OLLAMA_MUTATIONS: list[tuple[str, Any]] = [
    ("done", None),
    ("twice", None),
    ("spaces", None),
    ("extra", 1),
    ("error", "boom"),
    ("model", "llama4"),
    ("model", None),
    ("created_at", None),
    ("created_at", 5),
    ("done", True),
    ("done", None),
    ("done", 0),
    ("message.content", ""),
    ("message.content", None),
    ("message.content", 5),
    ("message.thinking", "hmm"),
    ("message.thinking", ""),
    ("message.role", None),
    ("message.tool_calls", [{"function": {"name": "f", "arguments": {}}}]),
    ("message.images", None),
    ("message", None),
    ("message", DELETE),
    ("model", DELETE),
    ("done", DELETE),
    ("message", "text"),
    ("response", "r"),
    ("response", None),
    ("thinking", "t"),
    ("logprobs", [{"token": "a", "logprob": -1.0}]),
    ("eval_count", 3),
]


@PROFILE
@given(st.lists(mutated(OLLAMA_LINE, None, OLLAMA_MUTATIONS, OLLAMA_DONE), max_size=10))
def test_ollama_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    first = orjson.dumps(OLLAMA_LINE) + b"\n"
    same_with_and_without(first + _lines(events))


@PROFILE
@given(
    st.lists(
        mutated(
            {"model": "llama3", "created_at": "x", "response": "a", "done": False},
            None,
            [*OLLAMA_MUTATIONS, ("response", ""), ("response", 5)],
            OLLAMA_DONE,
        ),
        max_size=10,
    )
)
def test_ollama_generate_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    first = b'{"model":"llama3","created_at":"x","response":"","done":false}\n'
    same_with_and_without(first + _lines(events))


BEDROCK_DELTA: dict[str, Any] = {"contentBlockIndex": 0, "delta": {"text": "a"}, "p": "abc"}
BEDROCK_MUTATIONS: list[tuple[str, Any]] = [
    ("twice", None),
    ("spaces", None),
    ("extra", 1),
    ("p", None),
    ("p", 5),
    ("contentBlockIndex", 1),
    ("contentBlockIndex", -1),
    ("contentBlockIndex", True),
    ("contentBlockIndex", "BIG"),
    ("delta.text", ""),
    ("delta.text", None),
    ("delta.text", 5),
    ("delta.p", "pad"),
    ("delta.toolUse", {"input": "{"}),
    ("delta.reasoningContent", {"text": "hmm"}),
    ("delta", None),
    ("delta", DELETE),
    ("contentBlockIndex", DELETE),
    ("delta.text", DELETE),
    ("event", b"contentBlockStart"),
    ("event", b"messageStop"),
    ("event", b"modelStreamErrorException"),
    ("event", b"error"),
]


@PROFILE
@given(st.lists(mutated(BEDROCK_DELTA, b"contentBlockDelta", BEDROCK_MUTATIONS, b""), max_size=10))
def test_bedrock_fast_path_reads_as_the_full_reading(events: list[bytes]) -> None:
    from .eventstream_frames import frame

    frames = [frame("messageStart", {"role": "assistant"})]
    frames.append(frame("contentBlockDelta", BEDROCK_DELTA))  # opens block 0
    for event in events:
        head, _, rest = event.partition(b"\n")
        name = head.removeprefix(b"event: ").decode()
        frames.append(frame(name, rest.removeprefix(b"data: ").rstrip(b"\n")))
    frames.append(frame("messageStop", {"stopReason": "end_turn"}))
    same_with_and_without(b"".join(frames))


LINE_PIECES = st.sampled_from(
    [
        b'{"model":"m","response":"a","done":false}',
        b' {"model":"m","message":{"role":"assistant","content":"b"},"done":false} ',
        b'data: {"id":"c","choices":[]}',
        b"data:",
        b"",
        b"  ",
        b"[1, 2]",
        b'{"unclosed":',
        b'{"done":true,"eval_count":3}',
        b"x" * 40,
    ]
)


@PROFILE
@given(
    st.lists(LINE_PIECES, max_size=40),
    st.booleans(),
    st.sampled_from([30, 41, 42, 1 << 20]),  # 41: the first piece's length, 42: with its "\n"
    st.sampled_from([1, 45, 120, 64 * 1024]),
)
def test_jsonl_lines_read_alike_with_and_without_carriage_returns(
    lines: list[bytes], last_newline: bool, max_line: int, block: int
) -> None:
    """JSON Lines ended by "\\n" alone are read a block at a time (jsonl.read_jsonl: runs of
    compact lines at once, other blocks line by line; blocks of a few bytes here, so lines
    cross them); any "\\r" takes the regular-expression reading. Both give the same timeline."""
    from app.captures import Limits, jsonl
    from app.captures.jsonl import _read_lines, read_jsonl
    from app.domain.stream import Source

    data = b"\n".join(lines) + (b"\n" if last_newline else b"")
    limits = Limits(max_line=max_line)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonl, "BLOCK", block)
        fast = read_jsonl(data, limits)
    full = _read_lines(data, limits, limits.builder(Source(data), container="lines"))
    assert [_stream_view(s) for s in fast] == [_stream_view(s) for s in full]


def _stream_view(stream: Any) -> bytes:
    return orjson.dumps(
        (
            [e.to_json() for e in stream.events],
            [(r.to_json(), r.choices, r.output, r.reasoning) for r in stream.raw],
            stream.dialect_name,
        )
    )
