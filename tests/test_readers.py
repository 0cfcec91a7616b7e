"""One test group per capture reader, plus detection and gzip."""

from __future__ import annotations

import base64
import gzip
import itertools
import json

import orjson
import pytest

from app.captures import Limits, read_capture
from app.captures.model import Capture
from app.captures.timed import end_line, header_line, read_line, read_records, write_records
from app.domain.dialects.chat.assemble import assemble, plain
from app.domain.metrics import compute

from .helpers import capture_timeline, corpus


def completion(stream) -> dict:
    return plain(assemble(stream.events))


def message(stream, choice: int = 0) -> dict:
    return completion(stream)["choices"][choice]["message"]


# ------------------------------------------------------------------ documentation form
def test_seed_docs_page_reads_as_two_streams():
    capture = read_capture(corpus("chat-completion-chunk-docs.txt"))
    assert capture.format == "docs"
    assert len(capture.streams) == 2
    first, second = (completion(s) for s in capture.streams)
    assert first["choices"][0]["message"]["content"] == "This is"
    assert first["choices"][0]["finish_reason"] == "stop"
    assert first["usage"] == {"prompt_tokens": 8, "completion_tokens": 4, "total_tokens": 12}
    call = second["choices"][0]["message"]["tool_calls"][0]
    assert call["id"] == "call_TARbemDG9CFdwuoaQBTRXiYK"
    assert call["function"]["name"] == "func"
    assert second["choices"][0]["finish_reason"] == "tool_calls"
    assert second["usage"] == {"prompt_tokens": 468, "completion_tokens": 59, "total_tokens": 527}


def test_seed_elided_arguments_are_reported_as_incomplete_json():
    capture = read_capture(corpus("chat-completion-chunk-docs.txt"))
    ends = [e for e in capture.streams[1].events if e.kind == "tool_end"]
    assert len(ends) == 1
    assert ends[0].status == "invalid"
    assert ends[0].incomplete is True
    assert "incomplete JSON" in ends[0].error
    codes = [d.code for d in capture.streams[1].diagnostics]
    assert codes.count("elided") == 2
    assert "prose" in codes


def test_docs_form_positions_point_at_the_data_line():
    capture = read_capture(corpus("chat-completion-chunk-docs.txt"))
    first_raw = capture.streams[0].raw[0]
    assert (first_raw.line, first_raw.byte) == (1, 0)
    assert capture.streams[0].raw_text(0).startswith('data: {\n"id": "chatcmpl-4b71')


def test_docs_form_comments_strip_one_leading_space_as_sse_does():
    data = b'Prose first.\n\n  :  indented, two spaces\n: one\ndata: {\n"choices": []\n}\n...\n'
    capture = read_capture(data, "docs")
    comments = [e.text for e in capture.streams[0].events if e.kind == "comment"]
    assert comments == [" indented, two spaces", "one"]


# ------------------------------------------------------------------ JSON Lines and arrays
CHUNKS = [
    {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}],
    },
    {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}],
    },
    {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    },
]


def test_json_lines_reader():
    data = "\n".join(json.dumps(c) for c in CHUNKS).encode() + b"\n"
    capture = read_capture(data)
    assert capture.format == "jsonl"
    (stream,) = capture.streams
    assert message(stream)["content"] == "Hello"
    assert completion(stream)["usage"]["total_tokens"] == 3
    assert [r.line for r in stream.raw] == [1, 2, 3]


def test_json_array_reader_keeps_element_positions():
    data = json.dumps(CHUNKS, indent=2).encode()
    capture = read_capture(data)
    assert capture.format == "json"
    (stream,) = capture.streams
    assert message(stream)["content"] == "Hello"
    assert stream.raw[0].line == 2
    assert json.loads(stream.raw_text(1)) == CHUNKS[1]


def test_a_lone_pretty_printed_object_is_one_payload():
    data = json.dumps(CHUNKS[0], indent=2).encode()
    capture = read_capture(data)
    assert capture.format == "json"
    assert message(capture.streams[0])["content"] == "Hel"


# ------------------------------------------------------------------ HAR
def har_entry(
    body: bytes,
    *,
    mime="text/event-stream",
    encoding=None,
    url="https://x.test/v1/chat/completions?key=SECRET",
):
    content = {"mimeType": mime, "size": len(body)}
    if encoding == "base64":
        content.update(text=base64.b64encode(body).decode(), encoding="base64")
    else:
        content["text"] = body.decode()
    return {
        "request": {
            "method": "POST",
            "url": url,
            "headers": [],
            "postData": {"text": '{"model":"gpt-x"}'},
        },
        "response": {"status": 200, "headers": [], "content": content},
    }


def test_har_reader_finds_stream_entries_and_decodes_base64():
    sse_a = corpus("openai-gpt4o-content-plain.sse")
    sse_b = corpus("openai-gpt4o-tool-single.sse")
    har = {
        "log": {
            "version": "1.2",
            "entries": [
                har_entry(b'{"ok":true}', mime="application/json"),
                har_entry(sse_a),
                har_entry(sse_b, encoding="base64", mime="text/event-stream; charset=utf-8"),
                har_entry(b"<html></html>", mime="text/html"),
            ],
        }
    }
    capture = read_capture(json.dumps(har).encode())
    assert capture.format == "har"
    assert len(capture.streams) == 2
    plain_ref = read_capture(sse_a).streams[0]
    assert completion(capture.streams[0]) == completion(plain_ref)
    assert message(capture.streams[1])["tool_calls"][0]["function"]["name"] == "GetWeatherArgs"
    assert "SECRET" not in capture.streams[0].origin
    assert capture.streams[0].request["model"] == "gpt-x"
    assert [d.code for d in capture.diagnostics] == ["har_ignored"]


def test_har_body_detected_by_content_when_mime_is_generic():
    body = corpus("mistral-small-text.sse")
    har = {"log": {"entries": [har_entry(body, mime="application/octet-stream")]}}
    capture = read_capture(json.dumps(har).encode())
    assert len(capture.streams) == 1


def test_har_without_streams_says_so():
    har = {"log": {"entries": [har_entry(b"{}", mime="application/json")]}}
    capture = read_capture(json.dumps(har).encode())
    assert capture.streams == []
    assert "har_no_stream" in [d.code for d in capture.diagnostics]


HAR_TIMINGS = {
    "blocked": 1.5,
    "dns": -1,
    "connect": 10.0,
    "ssl": 5.0,  # part of connect: not counted twice
    "send": 0.5,
    "wait": 300.0,
    "receive": 1200.0,
}


def timed_har(*entries: dict) -> bytes:
    return json.dumps({"log": {"version": "1.2", "entries": list(entries)}}).encode()


def with_timings(entry: dict, timings=HAR_TIMINGS, time=1512.0) -> dict:
    return {
        **entry,
        "startedDateTime": "2026-11-29T10:00:00.123Z",
        "time": time,
        "timings": timings,
    }


def test_har_timings_give_ttft_and_e2el_and_say_so():
    body = corpus("openai-gpt4o-tool-single.sse")
    capture = read_capture(timed_har(with_timings(har_entry(body))))
    (stream,) = capture.streams
    metrics = compute(stream)
    assert (metrics.ttft_ms, metrics.e2el_ms) == (312.0, 1512.0)
    assert metrics.timing_source == "har"
    assert "HAR entry's timings (started 2026-11-29T10:00:00.123Z)" in metrics.timing_note
    assert metrics.itl_p50_ms is metrics.ttfo_ms is metrics.tpot_ms is None
    assert stream.timed is False  # no per-event times: its metrics are the entry's own
    assert capture.diagnostics == []


def test_a_har_entry_is_replayed_on_its_own_timings():
    """Its first event at the first byte (blocked + connect + send + wait), its last at the
    last (+ receive), the others evenly between, for the replay only: the metrics stay the
    entry's TTFT and E2EL, and no gap is made up (issue 28, item 19: it replayed in 0.08 s,
    paced 40 ms apart, its first token at 0:00)."""
    body = corpus("openai-gpt4o-tool-single.sse")
    (stream,) = read_capture(timed_har(with_timings(har_entry(body)))).streams
    times = [raw.t for raw in stream.raw]
    assert times[0] == 312.0 and times[-1] == 1512.0 and len(times) > 2
    steps = {round(b - a, 2) for a, b in itertools.pairwise(times)}
    assert max(steps) - min(steps) < 0.01  # evenly spread
    metrics = compute(stream)
    assert stream.timed is False and metrics.itl_p50_ms is None and metrics.stalls == []
    (untimed,) = read_capture(timed_har(har_entry(body))).streams
    assert {raw.t for raw in untimed.raw} == {None}  # no timings: paced, as before


def test_har_without_receive_uses_the_entry_time_and_without_timings_stays_unknown():
    body = corpus("mistral-small-text.sse")
    no_receive = with_timings(har_entry(body), {"send": 1, "wait": 99}, time=700)
    none = har_entry(body)
    capture = read_capture(timed_har(no_receive, none))
    first, second = (compute(s) for s in capture.streams)
    assert (first.ttft_ms, first.e2el_ms, first.timing_source) == (100.0, 700.0, "har")
    assert (second.ttft_ms, second.e2el_ms, second.timing_source) == (None, None, None)
    assert capture.diagnostics == []


@pytest.mark.parametrize(
    "timings",
    [
        {"wait": "300", "receive": 5},
        {"wait": -5, "receive": 5},
        {"wait": True, "receive": 5},
        {"wait": 1e308, "connect": 1e308, "receive": 1e308},
        {"wait": 10**400, "receive": 1},
    ],
)
def test_unusable_har_timings_are_said_and_leave_timing_unknown(timings):
    body = corpus("mistral-small-text.sse")
    entry = with_timings(har_entry(body), timings, time=None)
    capture = read_capture(timed_har(entry))
    metrics = compute(capture.streams[0])
    assert (metrics.ttft_ms, metrics.e2el_ms, metrics.timing_source) == (None, None, None)
    assert [d.code for d in capture.diagnostics][-1] == "har_timings"


def test_har_timings_of_an_entry_with_several_streams_are_not_used():
    body = corpus("mistral-small-text.sse") * 2  # a second stream after [DONE]
    capture = read_capture(timed_har(with_timings(har_entry(body))))
    assert len(capture.streams) == 2
    assert [compute(s).ttft_ms for s in capture.streams] == [None, None]
    assert [d.code for d in capture.diagnostics] == ["har_timings"]


# ------------------------------------------------------------------ curl
def test_curl_include_output_with_continue_and_headers():
    body = corpus("openai-gpt4o-content-plain.sse")
    data = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/2 200 \r\ncontent-type: text/event-stream; charset=utf-8\r\nx-request-id: abc\r\n\r\n"
        + body
    )
    capture = read_capture(data)
    assert capture.format == "curl"
    (stream,) = capture.streams
    assert completion(stream) == completion(read_capture(body).streams[0])
    assert stream.raw[0].line == 7
    assert data[stream.raw[0].byte :].startswith(b"data: ")


def test_curl_error_status_is_reported_and_error_body_read():
    data = (
        b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\r\n"
        b'{"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}'
    )
    capture = read_capture(data)
    assert [d.code for d in capture.diagnostics] == ["http_status"]
    errors = [e for e in capture.streams[0].events if e.kind == "error"]
    assert errors[0].message == "Rate limit reached"


def test_curl_dash_n_output_is_plain_sse():
    capture = read_capture(corpus("mistral-small-text.sse"))
    assert capture.format == "sse"


# ------------------------------------------------------------------ timed format
def timed_file(reads: list[tuple[float, bytes]], reason: str = "done") -> bytes:
    lines = [header_line(created="2026-11-29T10:00:00Z", source={"url": "http://127.0.0.1:1/v1"})]
    lines += [read_line(t, data) for t, data in reads]
    lines.append(end_line(reads[-1][0] + 1, reason))
    return b"".join(lines)


def test_timed_capture_round_trips_byte_exactly_with_boundaries_and_times():
    body = corpus("openai-gpt4o-content-logprobs.sse")

    reads = []
    cut_points = [0, 7, 150, 151, 400, 401, 900, len(body)]
    for i, (a, b) in enumerate(itertools.pairwise(cut_points)):
        reads.append((312.5 + i * 21.125, body[a:b]))
    reads.append((999.75, b"\xf0\x9f"))  # not UTF-8 on its own: stored as base64
    data = timed_file(reads)
    capture = Capture(format="timed")
    records = read_records(data, capture)
    assert records.reads == reads
    assert write_records(records) == data
    assert b'"base64":"8J8="' in data


def test_timed_capture_reads_with_real_times():
    body = corpus("openai-gpt4o-content-plain.sse")
    events = body.split(b"\n\n")
    reads = [(300.0 + 20 * i, e + b"\n\n") for i, e in enumerate(events) if e]
    capture = read_capture(timed_file(reads))
    assert capture.format == "timed"
    (stream,) = capture.streams
    assert stream.timed
    assert stream.end_reason == "done"
    assert completion(stream)["choices"] == completion(read_capture(body).streams[0])["choices"]
    assert stream.raw[0].t == 300.0
    assert stream.raw[-1].t == reads[-1][0]


def test_timed_capture_without_end_record_is_kept_with_a_warning():
    data = timed_file([(10.0, b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n')])
    data = data[: data.rindex(b'{"type":"end"')]
    capture = read_capture(data)
    assert message(capture.streams[0])["content"] == "x"
    assert "timed_end" in [d.code for d in capture.diagnostics]


def test_timed_capture_bad_records_are_located():
    good = timed_file([(1.0, b"data: [DONE]\n\n")])
    lines = good.split(b"\n")
    lines.insert(1, b"{not json")
    lines.insert(2, b'{"type":"read","t":"soon","text":"x"}')
    capture = read_capture(b"\n".join(lines))
    found = {(d.code, d.line) for d in capture.diagnostics}
    assert ("timed_json", 2) in found
    assert ("timed_time", 3) in found


# ------------------------------------------------------------------ gzip and detection
def test_gzip_of_any_format_is_read():
    for name in ("openai-gpt4o-tool-single.sse", "chat-completion-chunk-docs.txt"):
        raw = corpus(name)
        capture = read_capture(gzip.compress(raw))
        assert capture.compression == "gzip"
        assert capture_timeline(capture) == capture_timeline(read_capture(raw))


def test_gzip_bomb_is_capped():
    bomb = gzip.compress(b"data: " + b"a" * (5 * 1024 * 1024))
    capture = read_capture(bomb, limits=Limits(max_decompressed=1024 * 1024))
    assert "gzip_too_large" in [d.code for d in capture.diagnostics]


def test_truncated_gzip_keeps_what_came_out():
    raw = corpus("openai-gpt4o-content-plain.sse")
    packed = gzip.compress(raw)
    capture = read_capture(packed[: len(packed) // 2])
    codes = [d.code for d in capture.diagnostics]
    assert "gzip_truncated" in codes or "gzip_error" in codes


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("openai-gpt4o-content-plain.sse", "sse"),
        ("chat-completion-chunk-docs.txt", "docs"),
        ("derived/openai-gpt4o-tool-parallel.cr.sse", "sse"),
    ],
)
def test_detection(name, fmt):
    assert read_capture(corpus(name)).format == fmt


def cr_only_with_bom() -> bytes:
    body = corpus("openai-gpt4o-tool-single.sse").replace(b"\n", b"\r")
    return b"\xef\xbb\xbf" + body


def test_a_bom_and_cr_only_line_endings_are_detected_as_sse():
    data = cr_only_with_bom()
    capture = read_capture(data)
    assert capture.format == "sse", [d.message for d in capture.diagnostics]
    expected = completion(read_capture(corpus("openai-gpt4o-tool-single.sse")).streams[0])
    assert completion(capture.streams[0]) == expected


@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_detection_after_prose_sees_fields_at_every_kind_of_line_start(ending, bom):
    lines = [b"A stream as it came:", b": keep-alive", b"event: message", b"data: [DONE]", b""]
    assert read_capture(bom + ending.join(lines)).format == "sse"


def test_forced_format_is_used_and_unknown_format_refused():
    raw = corpus("chat-completion-chunk-docs.txt")
    strict = read_capture(raw, "sse")
    assert strict.format == "sse"
    assert any(d.code == "json_error" for s in strict.streams for d in s.diagnostics)
    refused = read_capture(raw, "yaml")
    assert refused.streams == []
    assert refused.diagnostics[0].code == "unknown_format"


def test_line_endings_do_not_change_the_assembly():
    base = completion(read_capture(corpus("openai-gpt4o-tool-parallel.sse")).streams[0])
    for name in (
        "derived/openai-gpt4o-tool-parallel.cr.sse",
        "derived/openai-gpt4o-tool-parallel.crlf.sse",
    ):
        assert completion(read_capture(corpus(name)).streams[0]) == base


def test_raw_text_is_the_exact_source_slice():
    raw = corpus("openrouter-claude-reasoning-keepalive.sse")
    stream = read_capture(raw).streams[0]
    covered = 0
    for i, event in enumerate(stream.raw):
        assert event.byte >= covered
        assert raw[covered : event.byte].strip() == b""  # only blank lines between events
        assert stream.raw_text(i) == raw[event.byte : event.end].decode()
        covered = event.end
    assert raw[covered:].strip() == b""
    assert stream.raw_text(0) == ": OPENROUTER PROCESSING\n"
    assert orjson.loads(stream.raw_text(2)[len("data: ") :])["provider"] == "Google"


def test_a_json_error_in_a_data_prefixed_json_line_is_placed_at_its_byte():
    """A pasted ``data:`` prefix is not part of the payload: an error's byte offset counts from
    where the payload starts (it was found by searching for the payload's first character,
    which can stand earlier in the prefix)."""
    data = b'{"a": 1}\n  data:  d{"b": 2}\n'
    stream = read_capture(data, "jsonl").streams[0]
    error = next(d for d in stream.diagnostics if d.code == "json_error")
    assert error.line == 2 and error.byte == data.index(b'd{"b"')


def test_a_long_json_array_is_read_in_linear_time_of_its_lines():
    """Each element's line is counted from the one before, not from the start of the file."""
    import time

    def cost(count: int) -> float:
        data = b"[\n" + b",\n".join(b'{"i": %d}' % i for i in range(count)) + b"\n]"
        started = time.process_time()
        streams = read_capture(data, "json").streams
        assert streams[0].raw[-1].line == count + 1
        return time.process_time() - started

    small, large = min(cost(2000) for _ in range(3)), min(cost(20000) for _ in range(3))
    assert large < 30 * small, (small, large)  # 10x the elements; quadratic would be ~100x


def test_a_stored_har_numbers_its_entries_as_the_uploaded_file_does(tmp_path):
    """The scrubber drops the entries without a stream but keeps their places, so the stored
    HAR's streams are named by the entry numbers of the file uploaded, as ``inspect`` names
    them (issue 28, item 19: the page said "HAR entry 1" and the CLI "HAR entry 2")."""
    from app.captures.scrubbing import scrub

    har = json.dumps(
        {
            "log": {
                "version": "1.2",
                "entries": [
                    har_entry(b'{"ok":true}', mime="application/json"),
                    har_entry(corpus("openai-gpt4o-content-plain.sse")),
                ],
            }
        }
    ).encode()
    original = read_capture(har)
    stored = read_capture(scrub(har, "har")[0])
    assert [s.origin for s in original.streams] == [s.origin for s in stored.streams]
    assert stored.streams[0].origin.startswith("HAR entry 2: POST")
    assert [d.code for d in stored.diagnostics] == ["har_ignored"]
