"""The SSE decoder against the WHATWG rules, including the spec's own examples."""

from __future__ import annotations

from app.domain.sse import SSEDecoder


def decode(*pieces: bytes) -> tuple[list, list]:
    decoder = SSEDecoder()
    items = []
    for piece in pieces:
        items += decoder.feed(piece)
    items += decoder.close()
    return items, decoder.diagnostics


def datas(items) -> list[bytes]:
    return [item.data for item in items if item.data is not None]


def test_spec_example_multiline_data_joined_with_newline():
    # WHATWG example: "data: YHOO\ndata: +2\ndata: 10\n\n" is one event "YHOO\n+2\n10".
    items, _ = decode(b"data: YHOO\ndata: +2\ndata: 10\n\n")
    assert datas(items) == [b"YHOO\n+2\n10"]


def test_spec_example_comments_ids_and_events():
    stream = b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
    items, _ = decode(stream)
    comments = [item.comment for item in items if item.comment is not None]
    assert comments == ["test stream"]
    assert datas(items) == [b"first event", b"second event", b" third event"]
    events = [item for item in items if item.data is not None]
    assert events[0].raw.id == "1"
    assert events[1].raw.id == ""  # "id" with no value resets the last event id


def test_spec_example_empty_data_lines():
    items, _ = decode(b"data\n\ndata\ndata\n\ndata:\n")
    # "data" alone adds an empty line; two give "\n"; the last event is unterminated.
    assert datas(items) == [b"", b"\n", b""]


def test_line_endings_lf_cr_crlf_give_the_same_events():
    body = [b'data: {"a":1}', b"", b"event: x", b'data: {"b":2}', b"", b": ping", b""]
    results = []
    for ending in (b"\n", b"\r", b"\r\n"):
        items, _ = decode(ending.join(body) + ending)
        results.append([(i.data, i.comment, i.raw.event, i.raw.line) for i in items])
    assert results[0] == results[1] == results[2]
    assert results[0][1] == (b'{"b":2}', None, "x", 3)


def test_crlf_split_across_reads_is_one_line_ending():
    items, diagnostics = decode(b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n")
    assert datas(items) == [b"a", b"b"]
    assert [i.raw.line for i in items] == [1, 3]
    assert diagnostics == []


def test_byte_offsets_cover_the_event_exactly():
    body = b"data: one\r\n\r\ndata: two\r\n\r\n"
    items, _ = decode(body[:12], body[12:])
    assert [(i.raw.byte, i.raw.end) for i in items] == [(0, 13), (13, 26)]
    assert body[items[1].raw.byte : items[1].raw.end] == b"data: two\r\n\r\n"


def test_bom_is_stripped_even_when_split():
    items, _ = decode(b"\xef\xbb", b"\xbfdata: x\n\n")
    assert datas(items) == [b"x"]
    assert items[0].raw.byte == 3


def test_unterminated_last_event_is_kept_with_a_diagnostic():
    items, diagnostics = decode(b'data: {"a":1}\n\ndata: {"b":2}')
    assert datas(items) == [b'{"a":1}', b'{"b":2}']
    assert {d.code for d in diagnostics} == {"unterminated_line", "unterminated_event"}


def test_line_separators_inside_data_do_not_split_lines():
    payload = '{"c":"a\u2028b\u2029c\u0085d"}'.encode()
    items, _ = decode(b"data: " + payload + b"\n\n")
    assert datas(items) == [payload]


def test_over_long_line_is_skipped_and_reported_and_the_rest_is_read():
    decoder = SSEDecoder(max_line=100)
    items = decoder.feed(b"data: " + b"x" * 60)
    items += decoder.feed(b"y" * 60 + b"\n\ndata: ok\n\n")
    items += decoder.close()
    assert datas(items) == [b"ok"]
    assert [d.code for d in decoder.diagnostics] == ["line_too_long"]
    assert items[0].raw.line == 3


def test_over_long_line_in_one_read_is_skipped_too():
    decoder = SSEDecoder(max_line=10)
    items = decoder.feed(b"data: " + b"z" * 50 + b"\n\ndata: ok\n\n") + decoder.close()
    assert datas(items) == [b"ok"]
    assert decoder.diagnostics[0].code == "line_too_long"


def test_field_with_leading_space_is_read_with_a_warning():
    items, diagnostics = decode(b" data: x\n\n")
    assert datas(items) == [b"x"]
    assert [d.code for d in diagnostics] == ["field_whitespace"]


def test_unknown_fields_are_ignored_with_info():
    items, diagnostics = decode(b"foo: bar\ndata: x\n\n")
    assert datas(items) == [b"x"]
    assert diagnostics[0].code == "unknown_field"
    assert diagnostics[0].severity == "info"


def test_retry_field_is_accepted_silently():
    items, diagnostics = decode(b"retry: 1000\ndata: x\n\n")
    assert datas(items) == [b"x"]
    assert diagnostics == []


def test_invalid_utf8_in_event_name_is_replaced_and_located():
    items, diagnostics = decode(b"data: 1\n\nevent: \xff\ndata: x\n\n")
    assert items[1].raw.event == "\ufffd"
    assert diagnostics[0].code == "invalid_utf8"
    assert diagnostics[0].line == 3
    assert diagnostics[0].byte == 16


def test_lf_after_a_held_partial_line_is_not_the_second_half_of_a_crlf():
    # The first read ends "data: b" after a CR; the LF that starts the next read ends that
    # partial line (it is not the LF of a CRLF), and the blank line then ends the event.
    items, diagnostics = decode(b"data: a\rdata: b", b"\n\ndata: c\n\n")
    assert datas(items) == [b"a\nb", b"c"]
    assert [i.raw.line for i in items] == [1, 4]
    assert diagnostics == []


def test_a_crlf_split_after_a_cr_that_ended_the_read_is_still_one_line_ending():
    body = b"data: a\r\ndata: b\r\n\r\n"
    items, _ = decode(body[:17], body[17:])
    assert datas(items) == [b"a\nb"]
    assert (items[0].raw.byte, items[0].raw.end) == (0, len(body))


def test_comments_strip_one_leading_space_as_field_values_do():
    items, _ = decode(b":  two spaces\n:no space\n: one\n:\n\n")
    assert [i.comment for i in items] == [" two spaces", "no space", "one", ""]


def test_the_two_halves_work_apart():
    """The line splitter cuts reads into lines whatever the split (CRLF across reads, a line in
    pieces); the field decoder reads lines it is given, with their positions."""
    from app.domain.sse_fields import FieldDecoder
    from app.domain.sse_lines import LineSplitter

    fields = FieldDecoder(max_line=100, line=1, byte=0)
    out: list = []
    for line, term in ((b"event: a", 1), (b"data: x", 2), (b"", 1), (b": hi", 1)):
        fields.line(line, term, None, out)
    assert [(i.raw.event, i.data, i.comment, i.raw.byte, i.raw.end) for i in out] == [
        ("a", b"x", None, 0, 19),
        (None, None, "hi", 19, 24),
    ]

    class Lines(FieldDecoder):
        def __init__(self) -> None:
            super().__init__(max_line=100, line=1, byte=0)
            self.got: list[tuple[bytes, int]] = []

        def line(self, line: bytes, term: int, t, out) -> None:
            self.got.append((line, term))

        def lines(self, lines: list[bytes], t, out) -> None:
            self.got.extend((line, 1) for line in lines)

    seen = Lines()
    splitter = LineSplitter(seen)
    for read in (b"\xef\xbb", b"\xbfda", b"ta: 1\r", b"\nevent", b": e\n\rtail"):
        splitter.feed(read, None, [])
    splitter.close(None, [])
    assert seen.got == [(b"data: 1", 1), (b"event: e", 1), (b"", 1), (b"tail", 0)]
    assert seen.byte == 4  # the BOM and the LF of the CRLF split across reads
