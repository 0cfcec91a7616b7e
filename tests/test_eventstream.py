"""The AWS event-stream decoder (app/domain/eventstream.py): frames in any split, both CRCs
checked, every header type, damage said with its offset and everything before it kept;
botocore's own decoder as the reference."""

from __future__ import annotations

import gzip
import uuid
import zlib
from datetime import UTC, datetime

import orjson
import pytest
from botocore.eventstream import EventStreamBuffer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.captures import read_capture
from app.domain.body import EVENTSTREAM_TYPE, BodyFeeder, EventStreamFeeder
from app.domain.eventstream import EventStreamDecoder, Frame, is_eventstream
from app.domain.eventstream_format import encode_frame, encode_header
from app.domain.stream import Source
from app.domain.timeline import TimelineBuilder

from .dialects.common import DIALECT_CAPTURES
from .eventstream_frames import frame
from .helpers import timeline

TOOL_USE = (DIALECT_CAPTURES / "bedrock-converse-claude-3-sonnet-tool-use.eventstream").read_bytes()
TEXT = (DIALECT_CAPTURES / "bedrock-converse-nova-micro-text.eventstream").read_bytes()


def decode(*pieces: bytes, max_frame: int | None = None) -> list:
    decoder = EventStreamDecoder() if max_frame is None else EventStreamDecoder(max_frame=max_frame)
    items = [item for piece in pieces for item in decoder.feed(piece)]
    return items + decoder.close()


def plain(items: list) -> list:
    """Frames and diagnostics as comparable values."""
    return [
        (i.raw.to_json(), dict(i.headers), i.payload, i.data_offset)
        if isinstance(i, Frame)
        else i.to_json()
        for i in items
    ]


def botocore_frames(data: bytes) -> list:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return list(buffer)


def starts(data: bytes) -> list[int]:
    """The byte offset of each frame (read from the length prefixes)."""
    offsets, pos = [], 0
    while pos < len(data):
        offsets.append(pos)
        pos += int.from_bytes(data[pos : pos + 4], "big")
    return offsets


def flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1 :]


# ---------------------------------------------------------------------- agreement with botocore
@pytest.mark.parametrize("data", [TOOL_USE, TEXT], ids=["tool-use", "text"])
def test_real_captures_decode_as_botocore_decodes_them(data):
    ours = [i for i in decode(data) if isinstance(i, Frame)]
    theirs = botocore_frames(data)
    assert len(ours) == len(theirs) == len(starts(data))
    for mine, message in zip(ours, theirs, strict=True):
        assert mine.headers == message.headers
        assert mine.payload == message.payload
        assert mine.raw.event == message.headers[":event-type"]
    assert [f.raw.byte for f in ours] == starts(data)
    assert [f.raw.line for f in ours] == list(range(1, len(ours) + 1))
    assert ours[-1].raw.end == len(data)


def test_every_header_type_is_decoded():
    when = datetime(2025, 3, 1, 12, 30, 5, 123000, tzinfo=UTC)
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    headers = (
        encode_header("yes", True)
        + encode_header("no", False)
        + encode_header("byte", -7, kind=2)
        + encode_header("short", -300, kind=3)
        + encode_header("int", -70000, kind=4)
        + encode_header("long", -(2**40), kind=5)
        + encode_header("blob", b"\x00\xffraw")
        + encode_header("text", "héllo")
        + encode_header("when", when)
        + encode_header("id", ident)
        + encode_header(":event-type", "metadata")
    )
    data = encode_frame(headers, b"{}")
    (ours,) = decode(data)
    assert ours.headers == {
        "yes": True,
        "no": False,
        "byte": -7,
        "short": -300,
        "int": -70000,
        "long": -(2**40),
        "blob": b"\x00\xffraw",
        "text": "héllo",
        "when": when,
        "id": ident,
        ":event-type": "metadata",
    }
    # botocore reads the same bytes to the same values (it keeps timestamps as milliseconds
    # and UUIDs as their 16 bytes)
    (theirs,) = botocore_frames(data)
    assert theirs.headers["when"] == int(when.timestamp() * 1000)
    assert theirs.headers["id"] == ident.bytes
    same = {k: v for k, v in ours.headers.items() if k not in ("when", "id")}
    assert {k: theirs.headers[k] for k in same} == same


def test_exception_and_error_frames_are_named_by_their_type():
    data = frame("throttlingException", {"message": "Too many requests"}, "exception")
    error_headers = (
        encode_header(":message-type", "error")
        + encode_header(":error-code", "InternalFailure")
        + encode_header(":error-message", "boom")
    )
    data += encode_frame(error_headers, b"")
    first, second = decode(data)
    assert (first.raw.event, first.message_type) == ("throttlingException", "exception")
    assert (second.raw.event, second.message_type) == ("error", "error")


# ---------------------------------------------------------------------- splits
def test_every_split_point_of_a_real_capture_gives_the_same_frames():
    expected = plain(decode(TOOL_USE))
    for cut in range(1, len(TOOL_USE)):
        assert plain(decode(TOOL_USE[:cut], TOOL_USE[cut:])) == expected, f"split at {cut}"


def body_timeline(*pieces: bytes) -> list[dict]:
    """The whole pipeline a live run uses: reads through BodyFeeder into the Bedrock timeline."""
    builder = TimelineBuilder(Source(), split_on_done=False)
    feeder = BodyFeeder(builder, EVENTSTREAM_TYPE)
    for piece in pieces:
        feeder.feed(piece)
    (stream,) = feeder.close()
    return timeline(stream)


def test_every_split_point_gives_the_same_timeline():
    expected = body_timeline(TOOL_USE)
    assert len(expected[0]["events"]) == 29 and len(expected[0]["raw"]) == 25
    for cut in range(1, len(TOOL_USE)):
        assert body_timeline(TOOL_USE[:cut], TOOL_USE[cut:]) == expected, f"split at {cut}"


def test_byte_by_byte_gives_the_same_frames():
    assert plain(decode(*(bytes([b]) for b in TEXT))) == plain(decode(TEXT))


def test_a_big_frame_read_in_small_pieces_is_looked_at_once(monkeypatch):
    # A frame is read once it is all here: the bytes handed to the framing stay linear in
    # the input, however small the reads (live mode reads a 16 MiB frame 1460 bytes at a time).
    looked_at: list[int] = []
    read_frames = EventStreamDecoder._read_frames

    def counted(self, data, t, out):
        looked_at.append(len(data))
        return read_frames(self, data, t, out)

    monkeypatch.setattr(EventStreamDecoder, "_read_frames", counted)
    big = frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 300_000}})
    data = TEXT + big + TEXT
    items = decode(*(data[i : i + 1460] for i in range(0, len(data), 1460)))
    assert plain(items) == plain(decode(data))
    assert sum(looked_at) < 4 * len(data)  # each byte about twice; a look per read: 100x


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=1, max_value=len(TEXT) - 1), max_size=40))
def test_random_splits_give_identical_results(cuts):
    points = sorted(set(cuts))
    pieces = [TEXT[a:b] for a, b in zip([0, *points], [*points, len(TEXT)], strict=True)]
    assert plain(decode(*pieces)) == plain(decode(TEXT))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=300))
def test_random_bytes_after_real_frames_never_raise_and_keep_the_frames(noise, cut):
    data = TOOL_USE[:cut] if cut else TOOL_USE
    items = decode(data, noise)
    ends = [*starts(TOOL_USE)[1:], len(TOOL_USE)]
    assert sum(isinstance(i, Frame) for i in items) >= sum(1 for end in ends if end <= len(data))


# ---------------------------------------------------------------------- damage
@pytest.mark.parametrize("where", [0, 5, 9], ids=["total length", "headers length", "prelude CRC"])
def test_a_flipped_bit_in_a_prelude_stops_the_reading_there(where):
    third = starts(TOOL_USE)[2]
    items = decode(flip(TOOL_USE, third + where))
    *kept, problem = items
    assert plain(kept) == plain(decode(TOOL_USE))[:2]
    assert (problem.code, problem.byte, problem.line) == ("eventstream_prelude_crc", third, 3)
    assert "cannot be trusted" in problem.message


def test_a_bad_prelude_crc_is_found_after_the_same_lengths_were_read_good():
    """The decoder remembers the preludes it checked: one sent again with the same lengths and
    another CRC is checked anew, not taken for the one it saw."""
    one = encode_frame(encode_header(":event-type", "x"), b'{"a": 1}')
    items = decode(one + one + flip(one, 9))
    *kept, problem = items
    assert [i.raw.byte for i in kept] == [0, len(one)]
    assert (problem.code, problem.byte, problem.line) == (
        "eventstream_prelude_crc",
        2 * len(one),
        3,
    )


@pytest.mark.parametrize("part", ["headers", "payload", "message CRC"])
def test_a_flipped_bit_in_a_frame_drops_that_frame_only(part):
    offsets = starts(TOOL_USE)
    fifth, sixth = offsets[4], offsets[5]
    headers_length = int.from_bytes(TOOL_USE[fifth + 4 : fifth + 8], "big")
    at = {
        "headers": fifth + 12 + 3,
        "payload": fifth + 12 + headers_length + 2,
        "message CRC": sixth - 2,
    }
    items = decode(flip(TOOL_USE, at[part]))
    good = plain(decode(TOOL_USE))
    problems = [i for i in items if not isinstance(i, Frame)]
    assert [(p.code, p.byte, p.line) for p in problems] == [("eventstream_message_crc", fifth, 5)]
    assert plain(items) == [*good[:4], problems[0].to_json(), *good[5:]]


@pytest.mark.parametrize("size", [100, 70_000], ids=["copied for its CRC", "read through a view"])
def test_the_message_crc_is_checked_whatever_the_frame_size(size):
    # Small frames are copied for their CRC, large ones read through a view (eventstream.py).
    big = frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * size}})
    assert [f.payload for f in botocore_frames(big)] == [i.payload for i in decode(big)]
    damaged = flip(big, len(big) - 20)
    [problem] = decode(TEXT + damaged + TEXT)[len(decode(TEXT)) : -len(decode(TEXT))]
    assert (problem.code, problem.byte) == ("eventstream_message_crc", len(TEXT))


def test_a_truncated_last_frame_is_said_and_the_frames_before_are_kept():
    last = starts(TOOL_USE)[-1]
    for cut in (last + 5, last + 40, len(TOOL_USE) - 1):
        *kept, problem = decode(TOOL_USE[:cut])
        assert plain(kept) == plain(decode(TOOL_USE))[:-1]
        assert (problem.code, problem.byte, problem.line) == ("eventstream_truncated", last, 25)
        if cut - last < 12:
            assert "prelude" in problem.message
        else:
            assert f"{cut - last} of its {len(TOOL_USE) - last} bytes" in problem.message


def test_impossible_lengths_under_a_good_prelude_crc_stop_the_reading():
    headers_longer_than_the_frame = encode_frame(b"", b"")[:4] + (99).to_bytes(4, "big")
    crc = zlib.crc32(headers_longer_than_the_frame).to_bytes(4, "big")
    prelude = headers_longer_than_the_frame + crc
    first = frame("messageStart", {"role": "assistant"})
    items = decode(first + prelude + b"\x00" * 8)
    assert isinstance(items[0], Frame)
    assert [(i.code, i.byte) for i in items[1:]] == [("eventstream_frame_length", len(first))]


@pytest.mark.parametrize("pieces", [1, 7])
def test_a_frame_over_the_cap_is_refused_and_the_next_is_read(pieces):
    big = frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 5000}})
    small = frame("contentBlockStop", {"contentBlockIndex": 0})
    data = small + big + small
    size = -(-len(data) // pieces)
    items = decode(*(data[i : i + size] for i in range(0, len(data), size)), max_frame=1000)
    assert [getattr(i, "code", None) or i.raw.event for i in items] == [
        "contentBlockStop",
        "eventstream_frame_too_large",
        "contentBlockStop",
    ]
    assert items[1].byte == len(small) and f"{len(big):,} bytes" in items[1].message
    assert items[2].raw.byte == len(small) + len(big) and items[2].raw.line == 3


def test_input_ending_inside_a_refused_frame_is_said():
    big = frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 5000}})
    small = frame("contentBlockStop", {"contentBlockIndex": 0})
    items = decode(small, big[:3000], max_frame=1000)
    assert [(i.code, i.byte) for i in items[1:]] == [
        ("eventstream_frame_too_large", len(small)),
        ("eventstream_truncated", len(small)),
    ]
    assert f"{len(big) - 3000} bytes before its end" in items[2].message


def test_headers_that_cannot_be_read_are_said_and_the_frame_kept():
    good = encode_header(":event-type", "metadata")
    unknown_type = good + b"\x03abc\x0a"
    data = encode_frame(unknown_type, b'{"usage": {}}')
    problem, kept = decode(data)
    assert (problem.code, problem.byte) == ("eventstream_header", 12 + len(good))
    assert "unknown type 10" in problem.message
    assert kept.raw.event == "metadata" and kept.payload == b'{"usage": {}}'
    cut_short = good + encode_header("text", "abcdef")[:-3]
    problem, kept = decode(encode_frame(cut_short, b"{}"))
    assert problem.code == "eventstream_header" and "cut short" in problem.message


def test_a_repeated_header_keeps_its_first_value():
    headers = encode_header(":event-type", "messageStart") + encode_header(":event-type", "x")
    problem, kept = decode(encode_frame(headers, b"{}"))
    assert (problem.code, problem.severity) == ("eventstream_duplicate_header", "warning")
    assert kept.raw.event == "messageStart"


# ---------------------------------------------------------------------- files and bodies
def test_an_eventstream_file_is_detected_and_read():
    capture = read_capture(TOOL_USE)
    assert capture.format == "eventstream"
    (stream,) = capture.streams
    assert len(stream.raw) == 25 and not stream.diagnostics
    assert stream.dialect_name == "bedrock-converse"
    assert is_eventstream(TOOL_USE[:12]) and not is_eventstream(flip(TOOL_USE, 3)[:12])
    assert read_capture(gzip.compress(TOOL_USE)).format == "eventstream"


def test_other_binary_data_is_still_refused_as_binary():
    capture = read_capture(b"\x00\x01\x02\x03" * 20)
    assert capture.format is None
    assert [d.code for d in capture.diagnostics] == ["binary"]


def test_a_damaged_file_keeps_what_came_before_the_damage():
    third = starts(TOOL_USE)[2]
    capture = read_capture(flip(TOOL_USE, third + 1))
    (stream,) = capture.streams
    assert len(stream.raw) == 2
    assert [(d.code, d.byte) for d in stream.diagnostics] == [("eventstream_prelude_crc", third)]
    assert stream.sightings.first("final_missing").value == "messageStop"


def test_a_body_of_eventstream_content_type_is_read_read_by_read():
    builder = TimelineBuilder(Source(), split_on_done=False, timed=True)
    feeder = BodyFeeder(builder, EVENTSTREAM_TYPE)
    cut = starts(TOOL_USE)[3] + 7  # the fourth frame completes with the second read
    feeder.feed(TOOL_USE[:cut], 10.0)
    feeder.feed(TOOL_USE[cut:], 20.0)
    (stream,) = feeder.close(30.0)
    assert [r.t for r in stream.raw] == [10.0] * 3 + [20.0] * 22
    assert stream.source.slice(0, stream.source.end) == TOOL_USE
    assert "".join(e.text for e in stream.events if e.kind == "text").startswith("Okay, let me")


def test_a_timed_capture_of_a_bedrock_response_reads_its_frames():
    from app.captures.timed import end_line, header_line, read_line, response_line

    cut = starts(TOOL_USE)[10]
    data = (
        header_line(created="2025-01-01T00:00:00Z")
        + response_line(1.0, 200, EVENTSTREAM_TYPE)
        + read_line(5.0, TOOL_USE[:cut])
        + read_line(9.0, TOOL_USE[cut:])
        + end_line(10.0, "done")
    )
    capture = read_capture(data)
    (stream,) = capture.streams
    assert capture.format == "timed" and stream.timed and stream.dialect_name == "bedrock-converse"
    assert len(stream.raw) == 25 and not capture.all_diagnostics
    assert stream.raw[10].t == 9.0


def test_a_payload_with_newlines_is_one_event():
    """SSE's rescue for events split by single newlines must never touch a binary frame."""
    payload = b'{"contentBlockIndex": 0, "delta": {"text": "a"}}\n{"contentBlockIndex": 0}'
    data = frame("messageStart", {"role": "assistant"}) + frame("contentBlockDelta", payload)
    builder = TimelineBuilder(Source(data))
    feeder = EventStreamFeeder(builder)
    feeder.feed_all(data)
    (stream,) = feeder.close()
    assert len(stream.raw) == 2
    assert [d.code for d in stream.diagnostics] == ["json_error"]
    assert stream.sightings.first("final_missing").value == "messageStop"


def test_frame_payloads_are_json_as_sent():
    data = frame("messageStart", {"role": "assistant", "p": "abc"})
    (item,) = decode(data)
    assert orjson.loads(item.payload) == {"role": "assistant", "p": "abc"}
    assert item.data_offset == len(data) - 4 - len(item.payload)


# ---------------------------------------------------------------------- errors, exports, scrubbing
def test_an_error_frame_is_an_error_even_before_any_dialect_is_known():
    headers = (
        encode_header(":message-type", "error")
        + encode_header(":error-code", "InternalFailure")
        + encode_header(":error-message", "The server failed")
    )
    (stream,) = read_capture(encode_frame(headers, b"")).streams
    errors = [e for e in stream.events if e.kind == "error"]
    assert [(e.message, e.code, e.event) for e in errors] == [
        ("The server failed", "InternalFailure", "error")
    ]
    assert not stream.diagnostics


@pytest.mark.parametrize("kind", ["jsonl", "sse", "timed"])
def test_exports_of_an_eventstream_capture_read_back_the_same(kind):
    from app.captures.export import to_jsonl, to_sse, to_timed
    from app.domain.summary import summarize

    capture = read_capture(TOOL_USE)
    exported = {"jsonl": to_jsonl, "sse": to_sse}.get(kind, lambda c: to_timed(c, TOOL_USE))(
        capture
    )
    again = read_capture(exported)
    assert again.format == ("timed" if kind == "timed" else kind)
    (stream,) = again.streams
    assert stream.dialect_name == "bedrock-converse" and not again.all_diagnostics
    assert summarize(stream)["completion"] == summarize(capture.streams[0])["completion"]


def test_scrubbing_writes_the_frames_again_around_what_it_removed():
    from app.captures.scrubbing import scrub

    secret = "sk-proj-" + "A1b2C3d4" * 4
    data = (
        frame("messageStart", {"role": "assistant"})
        + frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": f"key {secret}"}})
        + frame("contentBlockStop", {"contentBlockIndex": 0})
    )
    clean, redactions = scrub(data, "eventstream")
    assert secret.encode() not in clean and redactions["openai project key"] == 1
    capture = read_capture(clean)
    (stream,) = capture.streams
    assert len(stream.raw) == 3 and capture.all_diagnostics == []
    assert stream.sightings.first("final_missing").value == "messageStop"
    assert [e.text for e in stream.events if e.kind == "text"] == ["key [redacted]"]
    assert scrub(TOOL_USE, "eventstream")[0] == TOOL_USE  # nothing to remove: the same bytes


def test_scrubbing_a_secret_in_a_header_or_a_damaged_frame():
    from app.captures.scrubbing import scrub

    secret = "Bearer " + "abcdefgh" * 3
    headers = encode_header(":message-type", "error") + encode_header(":error-message", secret)
    damaged = flip(frame("contentBlockDelta", {"delta": {"text": secret}}), 30)
    data = encode_frame(headers, b"") + damaged + frame("messageStart", {"role": "assistant"})
    clean, redactions = scrub(data, "eventstream")
    assert b"abcdefgh" not in clean and redactions["bearer token"] == 2
    items = decode(clean)
    assert [i.raw.event for i in items] == ["error", "messageStart"]  # the damaged frame is gone
    assert items[0].headers[":error-message"] == "[redacted]"
