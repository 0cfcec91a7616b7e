"""Inputs found by the atheris harness's scrub target (``scripts/fuzz_readers.py --target
scrub``), minimised. Each broke the scrubbers' invariant (docs/security.md, "Secrets in
uploads"): an upload is refused with a clear error, or no key-shaped string is left in any view
of what was stored and scrubbing it again changes nothing (``tests/scrub_views.py``)."""

from __future__ import annotations

import base64
import json

import pytest

from .scrub_views import memory_importer, scrub_findings, unescaped, upload_views


def timed(*reads: dict) -> bytes:
    header = {"type": "header", "format": "streamscope.timed", "version": 1}
    records = [header, *reads, {"type": "end", "t": 9.0, "reason": "done"}]
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


@pytest.mark.parametrize(
    "second",
    [
        {"type": "read", "t": 2.0, "text": "Bearer abcdefghijklmnop"},
        {"type": "read", "t": 2.0, "base64": base64.b64encode(b"sk-0123456789abcdefghij").decode()},
    ],
    ids=["text", "base64"],
)
def test_a_key_that_starts_a_read_glued_to_the_word_before_it(second):
    # Joined, "...coBearer abc..." is no key (a word character before it), but the stored read
    # holds "Bearer abcdefghijklmnop" on its own: each read is also seen alone
    # (app/captures/scrub/text.py sweep_pieces). Found as key:stored, key:download/original
    # and key:download/timed.
    data = timed({"type": "read", "t": 1.0, "text": 'data: {"object":"chat.co'}, second)
    assert scrub_findings(memory_importer(), data, None) == []


def test_a_har_url_that_does_not_parse_is_scrubbed_once_for_all():
    # app/captures/scrub/values.py scrub_url gave "?" for "//]" (an unclosed IPv6 literal),
    # which a second scrub turned into "": found as rescrub.
    entry = {
        "request": {"url": "//]"},
        "response": {"content": {"mimeType": "text/event-stream", "text": "data: {}\n\n"}},
    }
    data = json.dumps({"log": {"entries": [entry]}}).encode()
    assert scrub_findings(memory_importer(), data, None) == []


def test_a_secret_header_line_inside_a_documentation_block_keeps_its_brackets():
    # app/captures/scrub/text.py _header_line replaced the whole rest of the line, the "}"
    # that closes the block too: the block then swallowed the lines after it (found as lost).
    data = b'data:{\nkey:""}\na'
    assert scrub_findings(memory_importer(), data, None) == []


def test_a_redaction_that_makes_broken_json_a_timed_header_is_refused_as_json():
    # The invalid escape "\a" kept this from being detected as a timed header; the redaction
    # of "apikey" made it whole, and the stored bytes (read as json) were a timed header.
    data = b'{"":"","format":"streamscope.timed","":{"":"","apikey":"\\a"},"":""}'
    assert scrub_findings(memory_importer(), data, None) == []


# Found by tests/test_scrub_properties.py (the same invariant, over SSE-shaped noise).
def test_an_empty_secret_parameter_is_left_as_it_is():
    # "?key=" became "?key=[redacted]", whose value a second scrub saw as "" (URL values stop
    # at brackets) and replaced again: found as rescrub.
    assert scrub_findings(memory_importer(), b"?key=", "docs") == []


def test_bearer_and_a_token_on_the_next_data_line_are_no_key():
    # "data: Bearer \ndata: x-api-key": the event's data joins the lines with "\n", and the
    # JSON Lines download then held "Bearer \nx-api-key", a key shape for "Bearer\s+...".
    # A bearer token is separated by spaces or tabs only, in every view alike.
    assert scrub_findings(memory_importer(), b"data: Bearer \ndata: x-api-key", None) == []


def test_a_redaction_that_mends_broken_json_is_no_loss():
    # The value "\a" is no JSON string; "[redacted]" is. The event, one raw event before (its
    # two lines could not be read), reads as two after: the invariant counted that as a
    # change of shape (lost); more events read is no loss. The secret is still removed.
    data = b'data:{}\ndata:{"":0,"clientsecret":"\\a"}'
    assert scrub_findings(memory_importer(), data, None) == []
    views = upload_views(memory_importer(), data)
    assert b"\\a" not in views["stored"] and b"[redacted]" in views["stored"]


def test_a_header_pair_whose_value_the_array_splitter_reads_as_structure():
    # The pair rule saw the string "},", the JSON array splitter (quotes paired otherwise)
    # saw "}" and ",": replacing it lost an element (found as lost). A replaced value keeps
    # its brackets and commas inside the new string.
    data = b'[{""""{""}""}""{""""name":"Cookie","value":"},"'
    assert scrub_findings(memory_importer(), data, "json") == []


def test_a_literal_without_escapes_still_pairs_the_quotes_on_its_line():
    # Only literals with an escape were matched, so a second scrub took the closing quote of
    # "/?key=[redacted]" for an opening one and found "://a@" (found as rescrub).
    assert scrub_findings(memory_importer(), b'{"\\/?key=a":/\\/a@"', None) == []


def test_a_documentation_block_deeper_than_orjson_writes():
    # app/captures/export.py _one_line: orjson reads 1,024 levels but writes 254; the JSON
    # Lines download raised TypeError (found by the scrub target, which makes every download).
    data = b"data: " + b"[" * 300 + b"\n" + b"]" * 300 + b"\n"
    assert scrub_findings(memory_importer(), data, "docs") == []


def test_a_pair_whose_quotes_the_readers_pair_otherwise_is_left_alone():
    # Broken JSON: the pair rule took '"\""' for a string, the array splitter (whose string
    # rule the scrubber now shares, app/captures/scrub/strings.py) paired the quotes otherwise;
    # replacing it changed the quotes it counts and lost an element (found as lost).
    data = b'[{""""[{""}}}{""{""""name":"KEY","value":"\\""}},a'
    assert scrub_findings(memory_importer(), data, "json") == []


def test_a_control_character_written_as_an_escape_is_no_key():
    # The byte 0x08 before "earer aaaaaaaa" is written "\b" in every view made as JSON (the
    # timed download, the page), which a key pattern then read as "bearer aaaaaaaa". The
    # invariant now looks at characters, not at the letters of escapes (tests/scrub_views.py);
    # a real key after an escaped backslash ("\\sk-...") still counts.
    assert scrub_findings(memory_importer(), b"data:\x08earer aaaaaaaa", None) == []
    assert not unescaped(b'"\\bearer aaaaaaaa"', 2)
    assert unescaped(b'"\\\\sk-0123456789abcdefghij"', 3)


def test_a_redaction_that_mends_a_payload_may_regroup_streams():
    # Mended, the first event reads as a chat chunk, and "message_stop" no longer starts a
    # stream of its own: two streams (3 raw events) became one (4 raw events). The invariant
    # counted streams (found as lost); it counts raw events, which nothing lost.
    data = (
        b'data:{"":"","":"","choices":[{"":{"":[[]]}}],"":""}\n'
        b'data:{"":"","":[{"":{"":[],"apikey":"\\a"},"":null}]}\n\n'
        b'data:{"type":"message_stop"}\n\ndata'
    )
    assert scrub_findings(memory_importer(), data, None) == []


def test_a_payload_on_two_lines_is_not_joined_into_a_key_shape():
    # A JSON body "Bearer \nx-api-key" is no key (a bearer token is separated by spaces or
    # tabs only), but the JSON Lines and SSE downloads joined its lines with a space and
    # showed "Bearer x-api-key" (found by the scrub property, tests/test_scrub_properties.py).
    assert scrub_findings(memory_importer(), b"Bearer \nx-api-key", "json") == []


def test_a_payload_that_is_not_json_keeps_its_line_breaks_in_the_downloads():
    from app.captures import read_capture
    from app.captures.export import to_jsonl, to_sse

    capture = read_capture(b"not\njson", "json")
    assert to_jsonl(capture) == b"not\\njson\n"
    assert to_sse(capture) == b"data: not\ndata: json\n\n"
