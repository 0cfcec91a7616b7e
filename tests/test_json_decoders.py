"""Bodies that are not SSE, read as they arrive: NDJSON lines (Ollama) and the elements of a
streamed JSON array (Gemini without alt=sse). Each decoder gives, at every split point and in
any number of reads, exactly what the whole-buffer readers of app/captures/jsonl.py find
(``read_jsonl``, ``split_array``), each item with the time of the read that completed it; the
body feeder routes them by content type, or by the first bytes."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.captures.jsonl as jsonl
from app.captures import Limits, model, read_capture
from app.captures.timed import end_line, header_line, read_line, response_line
from app.domain.body import BodyFeeder
from app.domain.dialects.chat.assemble import plain
from app.domain.events import Diagnostic
from app.domain.jsonarray import JSONArrayDecoder
from app.domain.ndjson import JSONItem, NDJSONDecoder
from app.domain.stream import Source
from app.domain.summary import summarize
from app.domain.timeline import TimelineBuilder

from .dialects.common import DIALECT_CAPTURES, captures

NDJSON = captures("ollama-")
ARRAY = "gemini-2-5-flash-json-array-thinking-tools.json"
Decoder = NDJSONDecoder | JSONArrayDecoder


def decode(decoder: Decoder, pieces: list[bytes]) -> tuple[list[tuple], list[Diagnostic]]:
    """Items as (line, byte, end, payload, t) and the diagnostics, read ``i`` at time ``i``."""
    out: list[JSONItem | Diagnostic] = []
    for number, piece in enumerate(pieces):
        out += decoder.feed(piece, float(number))
    out += decoder.close(float(len(pieces)))
    items = [
        (i.raw.line, i.raw.byte, i.raw.end, i.data, i.raw.t) for i in out if isinstance(i, JSONItem)
    ]
    return items, [i for i in out if isinstance(i, Diagnostic)]


def untimed(items: list[tuple]) -> list[tuple]:
    return [item[:4] for item in items]


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


class Recording(TimelineBuilder):
    """The whole-buffer reader's payloads, as it hands them to its builder."""

    seen: list[tuple] = []

    reading_items = False

    def data(self, raw, payload, data_offset=0, *, split_lines=True):
        if not self.reading_items:
            Recording.seen.append((raw.line, raw.byte, raw.end, bytes(payload)))
        super().data(raw, payload, data_offset, split_lines=split_lines)

    def items(self, items, *, split_lines=True):
        """Payloads handed over a run at a time (read_jsonl): each as data() would see it."""
        for item in items:
            Recording.seen.append((item.raw.line, item.raw.byte, item.raw.end, bytes(item.data)))
        self.reading_items = True
        try:
            super().items(items, split_lines=split_lines)
        finally:
            self.reading_items = False


def jsonl_reference(data: bytes, monkeypatch) -> list[tuple]:
    Recording.seen = []
    monkeypatch.setattr(model, "TimelineBuilder", Recording)  # what Limits.builder makes
    jsonl.read_jsonl(data, Limits())
    monkeypatch.undo()
    return Recording.seen


def array_reference(data: bytes) -> list[tuple]:
    """``split_array``'s spans as items (a body that is not an array is one value)."""
    stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not stripped:
        return []
    if stripped[:1] != b"[":
        spans = [(len(data) - len(stripped), len(data.rstrip()))]
    else:
        spans = jsonl.split_array(data)
    return [(data.count(b"\n", 0, a) + 1, a, b, data[a:b]) for a, b in spans]


# ---------------------------------------------------------------------- the real captures
@pytest.mark.parametrize("name", NDJSON)
def test_ndjson_every_two_way_split_reads_what_read_jsonl_reads(name, monkeypatch):
    data = (DIALECT_CAPTURES / name).read_bytes()
    reference = jsonl_reference(data, monkeypatch)
    assert len(reference) > 1
    whole, notes = decode(NDJSONDecoder(), [data])
    assert untimed(whole) == reference and notes == []
    for cut in range(1, len(data)):
        items, notes = decode(NDJSONDecoder(), [data[:cut], data[cut:]])
        assert untimed(items) == reference and notes == [], f"split at byte {cut}"


@pytest.mark.parametrize("name", NDJSON)
def test_ndjson_single_bytes_and_random_splits_read_the_same(name, monkeypatch):
    data = (DIALECT_CAPTURES / name).read_bytes()
    reference = jsonl_reference(data, monkeypatch)
    assert untimed(decode(NDJSONDecoder(), [bytes([b]) for b in data])[0]) == reference
    rng = random.Random(name)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(data)), k=min(30, len(data) - 1)))
        assert untimed(decode(NDJSONDecoder(), splits(data, cuts))[0]) == reference


def test_the_array_every_two_way_split_reads_what_split_array_finds():
    data = (DIALECT_CAPTURES / ARRAY).read_bytes()
    reference = array_reference(data)
    assert len(reference) == 2
    for cut in range(1, len(data)):
        items, notes = decode(JSONArrayDecoder(), [data[:cut], data[cut:]])
        assert untimed(items) == reference and notes == [], f"split at byte {cut}"
    assert untimed(decode(JSONArrayDecoder(), [bytes([b]) for b in data])[0]) == reference


# ---------------------------------------------------------------------- times and places
def test_each_line_has_the_time_of_the_read_that_completed_it():
    pieces = [b'{"a": 1}\n{"b"', b": 2}", b"\r", b'\n{"c": 3}']
    items, _ = decode(NDJSONDecoder(), pieces)
    # line 2 ends with the CR of read 2; the LF of read 3 still belongs to it
    assert items == [
        (1, 0, 9, b'{"a": 1}', 0.0),
        (2, 9, 19, b'{"b": 2}', 2.0),
        (3, 19, 27, b'{"c": 3}', 4.0),
    ]


def test_each_element_has_the_time_of_the_read_that_ended_it():
    pieces = [b'[{"a": [1,', b" 2]}\r\n", b',{"b": "x,]"}', b"\r\n]"]
    items, notes = decode(JSONArrayDecoder(), pieces)
    assert items == [
        (1, 1, 14, b'{"a": [1, 2]}', 2.0),
        (2, 17, 29, b'{"b": "x,]"}', 3.0),
    ]
    assert untimed(items) == array_reference(b"".join(pieces)) and notes == []


def test_a_lone_object_is_one_payload_at_the_end():
    pieces = [b'{\n  "error": {', b'"code": 400}\n}\n']
    items, notes = decode(JSONArrayDecoder(), pieces)
    assert items == [(1, 0, len(b"".join(pieces).rstrip()), b"".join(pieces).rstrip(), 2.0)]
    assert notes == []


def test_a_bom_and_blank_lines_keep_file_positions():
    items, _ = decode(NDJSONDecoder(), [b"\xef\xbb", b'\xbf\n  \n {"a":1} \n'])
    assert items == [(3, 7, 17, b'{"a":1}', 1.0)]
    items, _ = decode(JSONArrayDecoder(), [b"\xef", b"\xbb\xbf [ 1 ,\n 2 ]"])
    assert untimed(items) == [(1, 6, 7, b"1"), (2, 11, 12, b"2")]


def test_an_overlong_line_or_element_is_skipped_with_where_it_was_and_the_rest_read():
    pieces = [b'{"a":1}\n{"long": "', b"x" * 50, b'"}\n{"b":2}\n']
    items, notes = decode(NDJSONDecoder(max_line=40), pieces)
    assert [item[3] for item in items] == [b'{"a":1}', b'{"b":2}']
    assert [(n.code, n.line, n.byte) for n in notes] == [("line_too_long", 2, 8)]
    assert "62 bytes is over the 40-byte cap" in notes[0].message
    items, notes = decode(
        JSONArrayDecoder(max_line=40), [b'[{"a":1},{"long": "', b"x" * 50, b'"},{"b":2}]']
    )
    assert [item[3] for item in items] == [b'{"a":1}', b'{"b":2}']
    assert [(n.code, n.line, n.byte) for n in notes] == [("line_too_long", 1, 9)]


def test_an_array_that_never_closes_keeps_its_last_element_and_says_where_it_ends():
    items, notes = decode(JSONArrayDecoder(), [b'[{"a":1},\n{"b":', b"2"])
    assert untimed(items) == [(1, 1, 8, b'{"a":1}'), (2, 10, 16, b'{"b":2')]
    assert [(n.code, n.severity, n.line, n.byte) for n in notes] == [
        ("unterminated_array", "warning", 2, 16)
    ]


def test_data_after_the_array_is_said_once_and_ignored():
    items, notes = decode(JSONArrayDecoder(), [b"[1]\n", b" junk", b" more"])
    assert untimed(items) == [(1, 1, 2, b"1")]
    assert [(n.code, n.line, n.byte) for n in notes] == [("after_array", 2, 5)]


# ---------------------------------------------------------------------- properties
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab\n"\\,[]{}é \r', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
SPACE = st.sampled_from(["", " ", "\n", "\r\n", "\t", "  \r\n"])


@st.composite
def arrays(draw) -> bytes:
    """A JSON array written with any spacing, sometimes cut short or followed by more."""
    values = draw(st.lists(VALUES, max_size=5))
    parts = [draw(SPACE), "["]
    for index, value in enumerate(values):
        if index:
            parts += [draw(SPACE), ","]
        parts += [draw(SPACE), json.dumps(value, ensure_ascii=draw(st.booleans())), draw(SPACE)]
    parts += ["]", draw(SPACE)]
    data = "".join(parts).encode()
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data


JSONISH = st.lists(
    st.sampled_from(
        [b"[", b"]", b"{", b"}", b'"', b"\\", b",", b" ", b"\n", b"\r", b"a", b"1", b"\xc3\xa9"]
    ),
    max_size=40,
).map(b"".join)


@st.composite
def cut(draw, data: bytes) -> list[bytes]:
    cuts = draw(st.lists(st.integers(1, max(1, len(data) - 1)), max_size=6, unique=True))
    return splits(data, sorted(c for c in cuts if 0 < c < len(data)))


@settings(max_examples=300, deadline=None)
@given(st.one_of(arrays(), JSONISH, JSONISH.map(lambda b: b"[" + b)), st.data())
def test_array_elements_split_anywhere_are_what_split_array_finds(data, draw):
    pieces = draw.draw(cut(data))
    items, _ = decode(JSONArrayDecoder(), pieces)
    assert untimed(items) == array_reference(data)


LINES = st.lists(
    st.tuples(
        st.sampled_from([b"", b" ", b"\t", b"data: ", b"  data:"]),
        st.one_of(
            VALUES.map(lambda v: json.dumps(v).encode()),
            JSONISH.filter(lambda b: b"\r" not in b and b"\n" not in b),
        ),
        st.sampled_from([b"\n", b"\r\n", b"\r", b" \n", b"\n\n"]),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(LINES, st.booleans(), st.data())
def test_ndjson_lines_split_anywhere_are_what_read_jsonl_reads(lines, ended, draw):
    data = b"".join(a + b + c for a, b, c in lines)
    if not ended:
        data = data.rstrip(b"\r\n")
    pieces = draw.draw(cut(data))
    Recording.seen = []
    original = model.TimelineBuilder
    model.TimelineBuilder = Recording  # what Limits.builder makes
    try:
        jsonl.read_jsonl(data, Limits())
    finally:
        model.TimelineBuilder = original
    items, _ = decode(NDJSONDecoder(), pieces)
    assert untimed(items) == Recording.seen


# ---------------------------------------------------------------------- the body feeder
def feed_body(data: bytes, content_type: str | None, size: int = 7):
    builder = TimelineBuilder(Source(), split_on_done=False, timed=True)
    feeder = BodyFeeder(builder, content_type)
    for start in range(0, len(data), size):
        feeder.feed(data[start : start + size], float(start))
    (stream,) = feeder.close(float(len(data)))
    return feeder.mode, stream


@pytest.mark.parametrize(
    ("name", "content_type", "mode"),
    [
        ("ollama-chat-llama3-text.ndjson", "application/x-ndjson", "ndjson"),
        ("ollama-generate-gemma3-1b-count.ndjson", "application/json; charset=utf-8", "ndjson"),
        ("ollama-chat-gemma3-1b-count.ndjson", None, "ndjson"),
        ("ollama-chat-llama3-text.ndjson", "text/plain", "ndjson"),
        (ARRAY, "application/json; charset=UTF-8", "json"),
        (ARRAY, None, "json"),
        (ARRAY, "application/octet-stream", "json"),
        ("gemini-2-0-flash-exp-text.sse", "text/plain; charset=utf-8", "sse"),
        ("gemini-2-0-flash-exp-text.sse", None, "sse"),
    ],
)
def test_the_body_feeder_reads_each_kind_as_it_arrives(name, content_type, mode):
    data = (DIALECT_CAPTURES / name).read_bytes()
    chosen, stream = feed_body(data, content_type)
    reference = read_capture(data).streams[0]
    assert chosen == mode
    assert plain(summarize(stream))["normalized"] == plain(summarize(reference))["normalized"]
    assert stream.dialect_name == reference.dialect_name and not stream.diagnostics
    times = [raw.t for raw in stream.raw]
    assert len(set(times)) == len(times) > 1, "each payload has the time of its own read"


def test_a_body_that_is_not_a_stream_is_still_said():
    mode, stream = feed_body(b"<html><title>Bad</title></html>", "text/html")
    assert mode == "other" and "not_a_stream" in [d.code for d in stream.diagnostics]
    mode, stream = feed_body(b"plain words, not a stream", "text/plain")
    assert mode == "other" and "not_a_stream" in [d.code for d in stream.diagnostics]


def test_a_timed_ndjson_capture_replays_with_its_own_read_times():
    data = (DIALECT_CAPTURES / "ollama-chat-llama3-text.ndjson").read_bytes()
    lines = data.splitlines(keepends=True)
    records = [
        header_line(created="2026-01-01T00:00:00.000Z"),
        response_line(1.0, 200, "application/x-ndjson"),
    ]
    records += [read_line(10.0 * (i + 1), line) for i, line in enumerate(lines)]
    records.append(end_line(10.0 * (len(lines) + 1), "done"))
    capture = read_capture(b"".join(records))
    (stream,) = capture.streams
    assert capture.format == "timed" and stream.dialect_name == "ollama"
    assert [raw.t for raw in stream.raw] == [10.0 * (i + 1) for i in range(len(lines))]
    reference = read_capture(data).streams[0]
    assert plain(summarize(stream))["normalized"] == plain(summarize(reference))["normalized"]
