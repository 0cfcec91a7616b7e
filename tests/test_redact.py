"""The live redactor (app/live/redact.py): live runs, proxied calls and ``streamscope record``
sweep what they record as an upload of the same reads is swept, JSON escapes decoded, across
read boundaries (issue 10, item 2; issue 26, item 2). Complete lines go out at once with the
time of their read; the line still open waits for its end."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.captures.scrub import sweep_pieces
from app.captures.scrub.redactions import Redactions
from app.captures.scrubbing import scrub
from app.captures.timed import TimedRecords, header_line, write_records
from app.live.redact import OVERLONG, Redactor

CREDENTIAL = "canary-typed-key-0f9e8d7c6b5a4"  # the request's own key: not key-shaped
SLASHED = "canary-typed/key+0f9e8d7c6b5a4"  # a credential with a slash, as Azure keys may be
FOREIGN = "sk-proj-FOREIGN0123456789abcdefXYZ"  # key-shaped, not the request's
BEARER = "Bearer eyJabcdefgh.eyJijklmnop.qrstuvwxyz0123"
CREDENTIALS = [CREDENTIAL, SLASHED, "header-value-secret-42"]


def streamed(redactor: Redactor, reads: list[bytes]) -> bytes:
    pieces = [p for i, read in enumerate(reads) for p in redactor.feed(float(i), read)]
    return b"".join(piece for _, piece in [*pieces, *redactor.flush()])


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def escaped(secret: str) -> str:
    """A secret as an upstream may echo it inside a JSON string: its first letter escaped."""
    return f"\\u{ord(secret[0]):04x}{secret[1:]}"


# ------------------------------------------------------------------ what comes out, and when
def test_complete_lines_go_out_at_once_with_their_time():
    redactor = Redactor([CREDENTIAL])
    read = b'data: {"choices":[{"delta":{"content":"Hello world"}}]}\n\n'
    assert redactor.feed(1.5, read) == [(1.5, read)]
    assert redactor.flush() == []


def test_the_open_line_waits_for_its_end_and_keeps_the_time_of_its_read():
    redactor = Redactor([CREDENTIAL])
    assert redactor.feed(1.0, b'data: {"a":1}\n\ndata: {"content":"Hel') == [
        (1.0, b'data: {"a":1}\n\n')
    ]
    assert redactor.feed(2.0, b'lo"}\n\n') == [(1.0, b'data: {"content":"Hel'), (2.0, b'lo"}\n\n')]


def test_a_json_arrays_writes_come_out_one_for_one():
    """A Gemini JSON array ends each write with the closing brace of its element, on a line of
    its own: brackets, commas and blanks go out at once, so the element is shown when it came."""
    writes = [b'[{\n  "text": "a"\n}', b',\r\n{\n  "text": "b"\n}', b"\n]"]
    redactor = Redactor([CREDENTIAL])
    assert [redactor.feed(float(i), w) for i, w in enumerate(writes)] == [
        [(float(i), w)] for i, w in enumerate(writes)
    ]
    assert redactor.flush() == []


def test_a_rule_that_reaches_into_an_inert_start_still_redacts():
    redactor = Redactor([])
    assert redactor.feed(1.0, b"  \t") == [(1.0, b"  \t")]
    out = redactor.feed(2.0, b"x-api-key: plain-secret-value-77\n")
    assert b"".join(p for _, p in out) == b"x-api-key: [redacted]\n"


def test_what_is_held_at_the_end_comes_out_swept():
    redactor = Redactor([CREDENTIAL])
    assert redactor.feed(1.0, f'{{"error": "bad key {CREDENTIAL}'.encode()) == []
    assert redactor.flush() == [(1.0, b'{"error": "bad key [redacted]')]


# ------------------------------------------------------------------ the attacks of issue 26
ECHOES = {
    "a key-shaped key, first letter escaped": f'data: {{"content":"your key is {escaped(FOREIGN)}"}}\n\n',
    "the request's key, first letter escaped": f'data: {{"content":"{escaped(CREDENTIAL)} ok"}}\n\n',
    "the request's key, its slash escaped": f'data: {{"content":"{SLASHED.replace("/", chr(92) + "/")}"}}\n\n',
    "a request body echoed in a string": "data: "
    + json.dumps({"echo": json.dumps({"model": "m", "api_key": "plain-secret-value-77"})})
    + "\n\n",
}
LEAKS = (CREDENTIAL, SLASHED, FOREIGN, "plain-secret-value-77", FOREIGN[1:], CREDENTIAL[1:])


@pytest.mark.parametrize("name", sorted(ECHOES))
def test_a_secret_echoed_with_json_escapes_is_redacted_at_every_split_point(name):
    """Before: the live redactor matched key shapes and the exact credential in the raw bytes
    only, and each of these was recorded as it came; the same bytes uploaded were redacted."""
    text = ECHOES[name].encode()
    whole = Redactor(CREDENTIALS).whole(text)
    for leak in LEAKS:
        assert leak.encode() not in whole.replace(b"\\/", b"/"), leak
    for cut in range(len(text) + 1):
        out = streamed(Redactor(CREDENTIALS), [text[:cut], text[cut:]])
        assert out == whole, cut


@pytest.mark.parametrize("secret", [CREDENTIAL, FOREIGN, BEARER])
def test_a_secret_echoed_across_two_reads_is_redacted_at_every_split_point(secret):
    text = f'data: {{"error": "Incorrect API key provided: {secret}."}}\n\n'.encode()
    for cut in range(len(text) + 1):
        out = streamed(Redactor([CREDENTIAL]), [text[:cut], text[cut:]])
        assert secret.encode() not in out, cut
        assert secret.encode()[-12:] not in out and secret.encode()[:14] not in out, cut
        assert out == Redactor([CREDENTIAL]).whole(text), cut


def test_a_secret_in_one_byte_reads_is_redacted():
    text = f'x {CREDENTIAL} y {FOREIGN} z {BEARER} "{escaped(CREDENTIAL)}"\n'.encode()
    out = streamed(Redactor([CREDENTIAL]), [bytes([b]) for b in text])
    assert out == b'x [redacted] y [redacted] z [redacted] "[redacted]"\n'


def test_a_field_whose_value_is_on_the_next_line_is_held_until_it_comes():
    text = b'[{\n  "api_key"\n\n  : "plain-secret-value-77"\n}]\n'
    for cut in range(len(text) + 1):
        out = streamed(Redactor([]), [text[:cut], text[cut:]])
        assert b"plain-secret" not in out, cut
        assert out == Redactor([]).whole(text), cut


def test_a_header_pair_across_lines_is_held_until_its_value_comes():
    text = b'[\n {"name": "x-api-key",\n  "value": "plain-secret-value-77"}\n]\n'
    reads = [bytes([b]) for b in text]
    assert b"plain-secret" not in streamed(Redactor([]), reads)


def test_a_line_over_the_line_cap_is_not_recorded_and_the_next_lines_are():
    redactor = Redactor([], max_line=1000)
    out = redactor.feed(1.0, b"data: ok\n\ndata: " + b"x" * 600)
    assert out == [(1.0, b"data: ok\n\n")]
    assert redactor.feed(2.0, b"y" * 600) == []
    assert redactor.feed(3.0, b"z" * 5000) == []  # the rest of that line, as it comes
    assert redactor.feed(4.0, b"zz\n\ndata: next\n\n") == [(4.0, b"\ndata: next\n\n")]
    assert redactor.redactions[OVERLONG] == 1


# ------------------------------------------------------------------ the same as an upload
ALPHABET = st.sampled_from(
    [b"data: ", b'{"content":"', b'"}', b"\n\n", b"\n", b" ", b"hello", b"task", b"-", b"s",
     b"k", b"e", b"B", b"yJ", b".", b"A", b"Iza", b"0", b"canary", b"_", b"~", b"\\u0073",
     b"\\/", b'\\"', b'"api_key"', b":", b'\\"api_key\\": \\"', b"plainsecretvalue"]
)  # fmt: skip
SECRETS = st.sampled_from(
    [CREDENTIAL, FOREIGN, BEARER, SLASHED, "sk-ant-api03-abcdefghijklmnop",
     "AIzaSyA1234567890abcdefghijklmnopqrstu", "header-value-secret-42"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.one_of(ALPHABET, SECRETS.map(lambda s: b" " + s.encode())), max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
)
def test_streamed_redaction_equals_the_upload_sweep_of_the_same_reads(parts, cuts):
    data = b"".join(parts)
    reads = split_at(data, cuts)
    redactor = Redactor(CREDENTIALS)
    pieces = [p for i, read in enumerate(reads) for p in redactor.feed(float(i), read)]
    pieces += redactor.flush()
    out = b"".join(piece for _, piece in pieces)
    reference = Redactions()
    reference.known = redactor.redactions.known
    assert out == b"".join(sweep_pieces(reads, reference))
    for secret in (CREDENTIAL, FOREIGN, "header-value-secret-42", "sk-ant-api03-abcdefghijklmnop"):
        assert secret.encode() not in out
    # The recording, uploaded again, is unchanged: nothing in it is a secret to the sweep.
    recording = header_line(created="2026-12-01T00:00:00.000Z") + write_records(
        TimedRecords(reads=list(pieces))
    )
    assert scrub(recording, "timed")[0] == recording
