"""Inputs found by the atheris fuzz harness (``scripts/fuzz_readers.py``), minimised.

Each one made ``read_capture``, ``summarize``, the JSON serialisation of the summary or of the
events raise, or broke an invariant of the timeline (``seq`` is the position, ``raw`` is -1 or
a valid index, raw events' byte offsets never decrease and ``byte <= end``). Reading never
raises (docs/diagnostics.md): every one of these must read, with diagnostics where due.
"""

from __future__ import annotations

import pytest

from .helpers import exercise

CHUNK = b'{"choices":[{"index":0,"delta":{"content":"a"}}]}'


def nest(depth: int, inner: bytes = b"1") -> bytes:
    """A JSON value ``depth`` lists deep: orjson reads up to 1,024 levels, but writes only
    254, and Python's repr and == give up near its recursion limit (1,000 frames)."""
    return b"[" * depth + inner + b"]" * depth


BIG = b"1" + b"0" * 400  # past a double: orjson refuses it, the lenient decoder keeps an int


def sse(*payloads: bytes) -> bytes:
    return b"".join(b"data: " + p + b"\n\n" for p in payloads)


def timed(*records: bytes) -> bytes:
    header = b'{"type":"header","format":"streamscope.timed","version":1}'
    return b"\n".join((header, *records)) + b"\n"


def check(data: bytes, fmt: str | None = None) -> None:
    capture = exercise(data, fmt)
    for stream in capture.streams:
        for pos, event in enumerate(stream.events):
            assert event.seq == pos
            assert event.raw == -1 or 0 <= event.raw < len(stream.raw)
        for pos, raw in enumerate(stream.raw):
            assert raw.index == pos
            assert raw.byte <= raw.end, f"raw {pos}: byte {raw.byte} > end {raw.end}"
            if pos:
                before = stream.raw[pos - 1]
                assert raw.byte >= before.byte, (
                    f"raw {pos} ({raw.kind}) starts at {raw.byte}, "
                    f"before raw {pos - 1} ({before.kind}) at {before.byte}"
                )


# ------------------------------------------------------------------ timeline invariants
def test_comment_inside_an_event_keeps_raw_events_in_byte_order():
    # app/domain/sse.py: the comment is emitted when read, the event around it only at the
    # blank line, with the byte of its first field line: raw 1 (byte 0) follows raw 0 (byte 8).
    check(b"data: a\n: c\n\n")
    check(b"event: x\n: keep-alive\ndata: " + CHUNK + b"\n\n")


def test_blank_input_read_as_a_json_array_has_byte_before_end():
    # app/captures/jsonl.py read_json_array: a lone "object" span (len(data), len(rstrip)).
    check(b" ", "json")
    check(b"\n\n", "json")


# ------------------------------------------------------------------ HAR
@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b'{"log":0}', "har"),
        (b'{"log":[],"entries":[]}', None),  # detected as HAR
    ],
    ids=["forced", "detected"],
)
def test_har_whose_log_is_not_an_object(data, fmt):
    check(data, fmt)


def test_har_entry_with_a_malformed_ipv6_url():
    # app/captures/har.py _bare_url: urlsplit raises ValueError("Invalid IPv6 URL").
    check(
        b'{"log":{"entries":[{"request":{"method":"POST","url":"http://["},'
        b'"response":{"content":{"mimeType":"text/event-stream","text":"data: {}\\n\\n"}}}]}}'
    )


def test_har_response_headers_not_a_list():
    # app/captures/har.py _header: iterates response.headers (an int here).
    check(b'{"log":{"entries":[{"response":{"headers":1,"content":{"text":""}}}]}}')


# ------------------------------------------------------------------ payload shapes
def test_usage_that_is_not_an_object():
    # app/domain/metrics.py output_tokens: event.usage.get(...) on an int.
    check(sse(b'{"choices":[],"usage":0}'))
    check(sse(b'{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":"n/a"}'))


@pytest.mark.parametrize(
    "payloads",
    [
        (b'{"choices":[{"delta":{"x":[{"index":[]}]}}]}',) * 2,
        (b'{"choices":[{"delta":{"x":[]}}]}', b'{"choices":[{"delta":{"x":[{"index":{}}]}}]}'),
    ],
    ids=["in-old-list", "in-new-list"],
)
def test_delta_extra_list_items_with_an_unhashable_index(payloads):
    # app/domain/dialects/chat/assemble.py _merge_list: item["index"] used as a dict key.
    check(sse(*payloads))


# ------------------------------------------------------------------ deep values
# orjson.loads accepts 1,024 levels; orjson.dumps stops at 254 ("Recursion limit reached").
DEEP_FOR_ORJSON = 300
# Python's repr, str and == stop near the recursion limit.
DEEP_FOR_PYTHON = 1000


@pytest.mark.parametrize(
    "data",
    [
        # raised inside read_capture, by orjson.dumps
        sse(b'{"choices":[{"index":0,"logprobs":{"content":[' + nest(DEEP_FOR_ORJSON) + b"]}}]}"),
        sse(
            b'{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c",'
            b'"function":{"name":"f","arguments":' + nest(DEEP_FOR_ORJSON) + b"}}]}}]}"
        ),
        sse(b'{"error":{"code":' + nest(DEEP_FOR_ORJSON) + b"}}"),
        # raised when the summary or the events are serialised
        sse(b'{"choices":[],"x":' + nest(DEEP_FOR_ORJSON) + b"}"),
        sse(b'{"x":' + nest(DEEP_FOR_ORJSON) + b"}"),
    ],
    ids=["logprobs", "tool-arguments", "error-code", "chunk-extra", "payload"],
)
def test_values_deeper_than_orjson_writes(data):
    check(data)


@pytest.mark.parametrize(
    "data",
    [
        sse(b'{"choices":[{"index":0,"finish_reason":' + nest(DEEP_FOR_PYTHON) + b"}]}"),
        sse(b'{"choices":[{"index":' + nest(DEEP_FOR_PYTHON) + b"}]}"),
        sse(
            b'{"choices":[{"index":0,"delta":{"tool_calls":[{"index":'
            + nest(DEEP_FOR_PYTHON)
            + b"}]}}]}"
        ),
        sse(b'{"object":' + nest(DEEP_FOR_PYTHON) + b"}"),
        sse(b'{"error":{"message":' + nest(DEEP_FOR_PYTHON) + b"}}"),
        sse(b'{"error":' + nest(DEEP_FOR_PYTHON) + b"}"),
        sse(b'{"choices":[],"id":' + nest(DEEP_FOR_PYTHON) + b"}", b'{"choices":[],"id":"b"}'),
        sse(b'{"choices":[],"usage":' + nest(DEEP_FOR_PYTHON) + b"}") * 2,
        sse(b'{"choices":[],"model":"m","x":' + nest(DEEP_FOR_PYTHON) + b"}") * 2,
        sse(b'{"choices":[{"index":0,"x":' + nest(DEEP_FOR_PYTHON) + b"}]}") * 2,
        sse(b'{"choices":[],"model":' + nest(DEEP_FOR_PYTHON) + b"}") * 2,
        sse(b'{"choices":[],"id":' + nest(DEEP_FOR_PYTHON) + b"}") * 2,
        timed(b'{"type":' + nest(DEEP_FOR_PYTHON) + b"}"),
        timed(b'{"type":"read","t":1,"base64":' + nest(DEEP_FOR_PYTHON) + b"}"),
        b'{"type":"header","format":"streamscope.timed","version":'
        + nest(DEEP_FOR_PYTHON)
        + b"}\n",
    ],
    ids=[
        "finish-reason-str",
        "choice-index-repr",
        "tool-index-repr",
        "payload-object-repr",
        "error-message-str",
        "error-str",
        "first-id-repr",
        "usage-compare",
        "chunk-extra-compare",
        "choice-extra-compare",
        "meta-compare",
        "id-compare",
        "timed-record-type-repr",
        "timed-base64-str",
        "timed-version-repr",
    ],
)
def test_values_deeper_than_python_repr_and_compare(data):
    check(data)


# ------------------------------------------------------------------ big integers
@pytest.mark.parametrize(
    "data",
    [
        # raised inside read_capture (orjson.dumps of logprob entries, arguments, error)
        sse(b'{"choices":[{"index":0,"logprobs":{"content":[' + BIG + b"]}}]}"),
        sse(
            b'{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c",'
            b'"function":{"name":"f","arguments":{"n":' + BIG + b"}}}]}}]}"
        ),
        sse(b'{"error":{"code":' + BIG + b"}}"),
        # raised when the summary or the events are serialised
        sse(b'{"choices":[{"index":0,"n":' + BIG + b"}]}"),
        # not even past a double: any int over 64 bits, once one NaN sends the payload to
        # the lenient decoder
        sse(b'{"choices":[],"model":"m","created":100000000000000000000,"x":NaN}'),
    ],
    ids=["logprobs", "tool-arguments", "error-code", "choice-extra", "64-bit-after-nan"],
)
def test_integers_orjson_cannot_write(data):
    check(data)


@pytest.mark.parametrize(
    "record",
    [
        b'{"type":"read","t":' + BIG + b',"text":"data: {}\\n\\n"}',
        b'{"type":"read","t":' + BIG + b',"base64":""}',
    ],
    ids=["text", "base64"],
)
def test_timed_read_time_too_big_for_a_float(record):
    # app/captures/timed.py _read: float(t) raises OverflowError.
    check(timed(record), "timed")


def test_timed_end_time_too_big_for_a_float():
    # the end time becomes the last event's t; app/domain/metrics.py divides it.
    check(
        timed(
            b'{"type":"read","t":1,"text":"data: ' + CHUNK.replace(b'"', b'\\"') + b'"}',
            b'{"type":"end","t":' + BIG + b',"reason":"done"}',
        )
    )


# ------------------------------------------------------------------ metrics
def test_subnormal_time_offsets():
    # app/domain/metrics.py compute: stamps[-1] > 0, but stamps[-1] / 1000 == 0.0.
    escaped = CHUNK.replace(b'"', b'\\"')
    check(
        timed(
            b'{"type":"read","t":5e-324,"text":"data: ' + escaped + b'\\n\\n"}',
            b'{"type":"end","t":5e-324,"reason":"done"}',
        )
    )


# ------------------------------------------------------------------ dialect detection
@pytest.mark.parametrize(
    "data",
    [b'{"type":[]}\n', b'{"type":{}}\n', b'data: {"type":["message_start"]}\n\n'],
    ids=["list", "object", "sse"],
)
def test_a_payload_type_that_is_not_a_string(data):
    # app/domain/dialects/anthropic/interpreter.py and cohere.py sniff: ``kind in TYPES`` with a list or
    # an object raised TypeError (unhashable) from read_capture. Found by the scrub target of
    # scripts/fuzz_readers.py, which uploads every input.
    check(data)
