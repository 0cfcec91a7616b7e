"""Hypothesis properties over the readers: no input raises, and SSE text survives any split."""

from __future__ import annotations

import json

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.captures import FORMAT_NAMES, read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import exercise, feed_pieces, timeline
from .sse_reference import incremental_decode, reference_decode

PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROFILE
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data):
    exercise(data)


@PROFILE
@given(st.binary(max_size=600), st.sampled_from(sorted(FORMAT_NAMES)))
def test_arbitrary_bytes_in_every_forced_format_never_raise(data, fmt):
    exercise(data, fmt)


SSE_ALPHABET = st.sampled_from(
    [
        "data:",
        "data: [DONE]",
        "{",
        "}",
        '"',
        "\\",
        ":",
        "\n",
        "\r",
        " ",
        "a",
        "\u2028",
        "[",
        '{"choices":[{"index":0,"delta":{"content":"',
        '"}}]}',
        "\n\n",
        "event: error",
        "\xff",
    ]
)


@PROFILE
@given(st.lists(SSE_ALPHABET, max_size=60).map("".join))
def test_sse_shaped_noise_never_raises(text):
    exercise(text.encode("utf-8", errors="surrogatepass"))
    exercise(text.encode("utf-8", errors="surrogatepass"), "docs")


TOKEN_CHARS = st.sampled_from(
    [
        "a",
        "Z",
        " ",
        "\r",
        "\n",
        "\r\n",
        "\u2028",
        "\u2029",
        "\u0085",
        "\ufeff",
        "\U0001f600",
        "é",
        "data:",
        "data: [DONE]",
        ":",
        '"',
        "\\",
        "\t",
        "\x00",
        "{}",
        "\u00a0",
    ]
)
TOKENS = st.lists(
    st.lists(TOKEN_CHARS, min_size=1, max_size=6).map("".join), min_size=1, max_size=25
)


def encode(tokens: list[str], ending: str) -> bytes:
    events = []
    for token in tokens:
        chunk = {
            "id": "x",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": token}, "finish_reason": None}],
        }
        events.append("data: " + json.dumps(chunk, ensure_ascii=False) + ending + ending)
    events.append("data: [DONE]" + ending + ending)
    return "".join(events).encode()


@PROFILE
@given(TOKENS, st.sampled_from(["\n", "\r\n", "\r"]), st.data())
def test_sse_token_lists_split_anywhere_come_back_identical(tokens, ending, data):
    body = encode(tokens, ending)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=12)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    (stream,) = feed_pieces([p for p in pieces if p])
    texts = [e.text for e in stream.events if e.kind == "text"]
    assert texts == tokens
    assert plain(assemble(stream.events))["choices"][0]["message"]["content"] == "".join(tokens)
    assert [d.code for d in stream.diagnostics] == []


@PROFILE
@given(TOKENS)
def test_bom_before_the_stream_changes_nothing(tokens):
    body = encode(tokens, "\n")
    with_bom = read_capture(b"\xef\xbb\xbf" + body).streams[0]
    texts = [e.text for e in with_bom.events if e.kind == "text"]
    assert texts == tokens


@PROFILE
@given(TOKENS, st.data())
def test_timed_captures_give_the_same_events_whatever_the_read_boundaries(tokens, data):
    from app.captures.timed import end_line, header_line, read_line

    body = encode(tokens, "\n")
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=10)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True) if b > a]
    lines = [header_line(created="2026-01-01T00:00:00Z")]
    lines += [read_line(10.0 * (i + 1), piece) for i, piece in enumerate(pieces)]
    lines.append(end_line(10.0 * (len(pieces) + 1), "done"))
    timed = read_capture(b"".join(lines))
    plain_sse = read_capture(body)
    assert timed.format == "timed"
    texts = [e.text for e in timed.streams[0].events if e.kind == "text"]
    assert texts == [e.text for e in plain_sse.streams[0].events if e.kind == "text"] == tokens


@PROFILE
@given(st.binary(max_size=400), st.data())
def test_arbitrary_bytes_split_anywhere_never_raise_and_give_the_same_events(body, data):
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=8)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True) if b > a]
    whole = feed_pieces([body]) if body else feed_pieces([])
    split = feed_pieces(pieces)
    strip = lambda s: [{k: v for k, v in e.to_json().items() if k != "t"} for e in s[0].events]  # noqa: E731
    assert orjson.dumps(strip(split)) == orjson.dumps(strip(whole))


# Lines of an event stream, to be joined with any mix of line endings: data (JSON chunks and
# bare values), comments (no space, one, two), unknown fields, event/id/retry and blank lines.
SSE_LINES = st.sampled_from(
    [
        b'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}',
        b'data:{"choices":[{"index":0,"delta":{"content":" b\\r\\n"}}]}',
        b"data: x",
        b"data:",
        b"data",
        b"data: [DONE]",
        b": keep-alive",
        b":  two spaces",
        b":",
        b"x-unknown: 1",
        b"retry: 5",
        b"id: 7",
        b"event: message",
        b"",
        b"",
    ]
)
ENDINGS = st.sampled_from([b"\n", b"\r", b"\r\n"])
MIXED_STREAMS = st.lists(st.tuples(SSE_LINES, ENDINGS), max_size=24).map(
    lambda lines: b"".join(text + ending for text, ending in lines)
)


@PROFILE
@given(MIXED_STREAMS, st.booleans())
def test_mixed_line_endings_split_at_every_point_decode_as_the_whole_buffer_reference(body, bom):
    data = (b"\xef\xbb\xbf" if bom else b"") + body
    reference = reference_decode(data)
    assert incremental_decode([data]) == reference
    for cut in range(1, len(data)):
        assert incremental_decode([data[:cut], data[cut:]]) == reference, f"split at {cut}"


@PROFILE
@given(MIXED_STREAMS, st.data())
def test_mixed_line_endings_give_the_same_timeline_whatever_the_read_boundaries(body, data):
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=10)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True) if b > a]
    whole = feed_pieces([body] if body else [])
    split = feed_pieces(pieces)
    assert [timeline(s) for s in split] == [timeline(s) for s in whole]
    assert incremental_decode(pieces) == reference_decode(body)
