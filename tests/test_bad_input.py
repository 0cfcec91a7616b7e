"""Bad input never raises: each problem gets a code, a position and plain words, and
everything readable around it is kept."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from app.captures import Limits, read_capture
from app.domain.dialects.chat.assemble import assemble, plain
from app.domain.rules import find

from .helpers import feed_pieces

GOOD = b'data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}\n\n'


def content(stream) -> str | None:
    return plain(assemble(stream.events))["choices"][0]["message"]["content"]


def diag(capture, code: str):
    found = [d for d in capture.all_diagnostics if d.code == code]
    assert found, f"no {code} diagnostic in {[d.code for d in capture.all_diagnostics]}"
    return found[0]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty"),
        (b"   \n\n", "empty"),
        (bytes(range(256)) * 4, "binary"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "html"),
        (b"hello world, this is a plain letter", "unknown_format"),
    ],
)
def test_not_a_stream_at_all(data, code):
    capture = read_capture(data)
    assert capture.streams == []
    found = diag(capture, code)
    assert found.severity == "error"
    assert "not a stream" in found.message


def test_json_error_in_one_event_keeps_the_others():
    data = GOOD + b'data: {"choices": [}\n\n' + GOOD
    capture = read_capture(data)
    found = diag(capture, "json_error")
    assert found.line == 3
    assert found.byte == len(GOOD) + len(b'data: {"choices": [')
    assert "char 13" in found.message
    assert content(capture.streams[0]) == "okok"


def test_truncated_last_event():
    capture = read_capture(GOOD + b'data: {"choices":[{"index":0,"delta":{"content":"a')
    assert diag(capture, "unterminated_event").severity == "warning"
    found = diag(capture, "json_error")
    assert "incomplete JSON" in found.message
    assert content(capture.streams[0]) == "ok"


def test_missing_done_is_a_finding_not_a_diagnostic():
    capture = read_capture(GOOD)
    assert "missing_done" not in {d.code for d in capture.all_diagnostics}
    assert "stream-truncated" in {f.rule for f in find(capture.streams[0])}  # no finish either
    finished = GOOD + b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    rules = {f.rule for f in find(read_capture(finished).streams[0])}
    assert "done-missing" in rules and "stream-truncated" not in rules


def test_data_after_done_in_one_response():
    (stream,) = feed_pieces([GOOD, b"data: [DONE]\n\n", GOOD], [1.0, 2.0, 3.0])
    assert [d.code for d in stream.diagnostics] == ["data_after_done"]
    assert stream.diagnostics[0].line == 5
    assert content(stream) == "okok"


def test_data_after_done_in_a_file_starts_a_new_stream():
    capture = read_capture(GOOD + b"data: [DONE]\n\n" + GOOD)
    assert len(capture.streams) == 2
    assert diag(capture, "new_stream_after_done").line == 5


def test_line_over_the_length_cap():
    long_line = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 5000 + b'"}}]}\n\n'
    capture = read_capture(GOOD + long_line + GOOD, limits=Limits(max_line=1000))
    found = diag(capture, "line_too_long")
    assert found.line == 3
    assert found.byte == len(GOOD)
    assert content(capture.streams[0]) == "okok"


def test_nan_and_infinity_are_read_as_null():
    data = b'data: {"choices":[{"index":0,"delta":{"content":"a"},"score":NaN,"big":1e999}]}\n\n'
    capture = read_capture(data)
    assert diag(capture, "json_nonfinite").severity == "warning"
    assert diag(capture, "json_number_range")
    assert content(capture.streams[0]) == "a"


def test_lone_surrogate_is_replaced():
    data = b'data: {"choices":[{"index":0,"delta":{"content":"a\\ud800b"}}]}\n\n'
    capture = read_capture(data)
    assert diag(capture, "lone_surrogate")
    assert content(capture.streams[0]) == "a\ufffdb"
    json.dumps(plain(assemble(capture.streams[0].events))).encode()


def test_deep_nesting_does_not_crash():
    deep = b"[" * 200_000 + b"]" * 200_000
    capture = read_capture(GOOD + b"data: " + deep + b"\n\n" + GOOD)
    assert diag(capture, "json_too_deep").line == 3
    assert content(capture.streams[0]) == "okok"


def test_huge_integer_is_handled():
    data = b'data: {"choices":[{"index":0,"delta":{"content":"a"},"n":' + b"9" * 5000 + b"}]}\n\n"
    capture = read_capture(data)
    assert content(capture.streams[0]) == "a"


def test_tool_call_index_of_a_billion_allocates_nothing_big():
    data = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1000000000,"id":"a",'
        b'"function":{"name":"f","arguments":"{}"}}]}}]}\n\n'
    )
    tracemalloc.start()
    capture = read_capture(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2_000_000
    call = plain(assemble(capture.streams[0].events))["choices"][0]["message"]["tool_calls"]
    assert call[0]["function"]["name"] == "f"


def test_choice_index_of_a_billion_allocates_nothing_big():
    data = b'data: {"choices":[{"index":1000000000,"delta":{"content":"far"}}]}\n\n'
    tracemalloc.start()
    capture = read_capture(data)
    out = plain(assemble(capture.streams[0].events))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2_000_000
    assert out["choices"][0]["index"] == 1_000_000_000


def test_choices_not_a_list():
    capture = read_capture(b'data: {"choices":{"index":0}}\n\n' + GOOD)
    found = diag(capture, "choices_not_list")
    assert found.line == 1
    assert content(capture.streams[0]) == "ok"


def test_non_utf8_byte_in_data():
    data = GOOD + b'data: {"choices":[{"index":0,"delta":{"content":"caf\xe9"}}]}\n\n'
    capture = read_capture(data)
    found = diag(capture, "invalid_utf8")
    assert found.line == 3
    assert found.byte == len(GOOD) + len(b'data: {"choices":[{"index":0,"delta":{"content":"caf')
    assert content(capture.streams[0]) == "okcaf\ufffd"


def test_unknown_format_forced():
    capture = read_capture(GOOD, "protobuf")
    assert diag(capture, "unknown_format").severity == "error"


@pytest.mark.parametrize(
    "payload",
    [
        b"[]",
        b"42",
        b'"text"',
        b"null",
        b'{"choices":[1, null, "x"]}',
        b'{"choices":[{"index":-1}]}',
        b'{"choices":[{"index":0,"delta":[]}]}',
        b'{"choices":[{"index":0,"delta":{"tool_calls":{}}}]}',
        b'{"choices":[{"index":0,"delta":{"tool_calls":[7, {"index":"a"}]}}]}',
        b'{"choices":[{"index":0,"logprobs":{"content":5}}]}',
        b'{"choices":[{"index":true}]}',
        b'{"error":"plain string"}',
        b'{"choices":[{"index":0,"delta":{"content":[1,{"type":"image"}]}}]}',
    ],
)
def test_odd_shapes_never_raise(payload):
    capture = read_capture(GOOD + b"data: " + payload + b"\n\n" + GOOD)
    assert content(capture.streams[0]) == "okok"


def test_a_dropped_capture_is_freed_without_a_garbage_collection():
    import gc
    import weakref

    gc.disable()
    try:
        capture = read_capture(
            GOOD * 50
            + b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}\n\n'
        )
        stream = weakref.ref(capture.streams[0])
        assert stream() is not None
        del capture
        assert stream() is None, "a reference cycle keeps the stream alive"
    finally:
        gc.enable()
