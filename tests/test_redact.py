"""The live redactor: a secret split over any number of reads is never let out, and what
cannot start a secret is never held back (issue 10, item 2)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.captures.scrub import KEY_PATTERNS
from app.live.redact import MAX_HOLD, SHAPES, Redactor, Shape, shape_of

CREDENTIAL = "canary-typed-key-0f9e8d7c6b5a4"  # the request's own key: not key-shaped
FOREIGN = "sk-proj-FOREIGN0123456789abcdefXYZ"  # key-shaped, not the request's
BEARER = "Bearer eyJabcdefgh.eyJijklmnop.qrstuvwxyz0123"


def streamed(redactor: Redactor, reads: list[bytes]) -> bytes:
    return b"".join(redactor.feed(read) for read in reads) + redactor.flush()


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def test_every_key_pattern_has_a_shape_the_hold_back_rule_understands():
    assert None not in SHAPES, [
        p.pattern for (_, p), s in zip(KEY_PATTERNS, SHAPES, strict=True) if s is None
    ]
    assert Shape(b"Bearer", ignore_case=True, space=True) in SHAPES
    assert Shape(b"sk-") in SHAPES and Shape(b"sk-ant-") in SHAPES


def test_a_form_it_does_not_understand_falls_back_to_holding_more():
    assert shape_of(re.compile(rb"\bxox[baprs]-[A-Za-z0-9-]+")) is None
    assert shape_of(re.compile(rb"(?:a|b)key")) is None


@pytest.mark.parametrize("secret", [CREDENTIAL, FOREIGN, BEARER])
def test_a_secret_echoed_across_two_reads_is_redacted_at_every_split_point(secret):
    text = f'data: {{"error": "Incorrect API key provided: {secret}."}}\n\n'.encode()
    for cut in range(len(text) + 1):
        out = streamed(Redactor([CREDENTIAL]), [text[:cut], text[cut:]])
        assert secret.encode() not in out, cut
        assert secret.encode()[-12:] not in out and secret.encode()[:14] not in out, cut
        assert out == Redactor([CREDENTIAL]).whole(text), cut


def test_a_secret_in_one_byte_reads_is_redacted():
    text = f"x {CREDENTIAL} y {FOREIGN} z {BEARER}\n".encode()
    out = streamed(Redactor([CREDENTIAL]), [bytes([b]) for b in text])
    assert out == b"x [redacted] y [redacted] z [redacted]\n"


@pytest.mark.parametrize(
    "read",
    [
        b'data: {"choices":[{"delta":{"content":"Hel',
        b'data: {"choices":[{"delta":{"content":"Hello world"}}]}\n\n',
        b'data: {"choices":[{"delta":{"content":"task-',  # "sk-" inside a word starts nothing
        b"data: [DONE]\n\n",
        b'"usage": {"total_tokens": 12}',
    ],
)
def test_what_cannot_start_a_secret_goes_out_at_once(read):
    assert Redactor([CREDENTIAL]).feed(read) == read


@pytest.mark.parametrize(
    ("read", "held"),
    [
        (b'"content":"your key is sk', b"sk"),
        (b'"content":"your key is sk-proj-abc', b"sk-proj-abc"),
        (b'"message":"Bearer ', b"Bearer "),
        (b'"message":"bearer  abc.def', b"bearer  abc.def"),
        (b'"x":"eyJhbGciOi', b"eyJhbGciOi"),
        (b'"x":"canary-typed', b"canary-typed"),  # a prefix of the request's key
        (b'"x":"AIz', b"AIz"),
    ],
)
def test_only_what_could_start_a_secret_is_held_and_it_comes_out_at_the_end(read, held):
    redactor = Redactor([CREDENTIAL])
    assert redactor.feed(read) == read[: len(read) - len(held)]
    assert redactor.flush() == held


def test_a_key_shaped_run_longer_than_any_key_is_redacted_whole_without_holding_more():
    redactor = Redactor([CREDENTIAL])
    out = redactor.feed(b'"x":"sk-' + b"a" * (MAX_HOLD + 100))
    assert out == b'"x":"[redacted]'
    assert redactor.feed(b"b" * 1000 + b'" tail') == b'" tail'
    assert redactor.flush() == b""


ALPHABET = st.sampled_from(
    [
        b"data: ",
        b'{"content":"',
        b'"}',
        b"\n\n",
        b" ",
        b"hello",
        b"task",
        b"-",
        b"s",
        b"k",
        b"e",
        b"B",
        b"yJ",
        b".",
        b"A",
        b"Iza",
        b"0",
        b"canary",
        b"_",
        b"~",
    ]
)
SECRETS = st.sampled_from(
    [
        CREDENTIAL,
        FOREIGN,
        BEARER,
        "sk-ant-api03-abcdefghijklmnop",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
        "header-value-secret-42",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.one_of(ALPHABET, SECRETS.map(lambda s: b" " + s.encode())), max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
)
def test_streamed_redaction_equals_redacting_the_whole_and_lets_no_secret_out(parts, cuts):
    data = b"".join(parts)
    credentials = [CREDENTIAL, "header-value-secret-42"]
    out = streamed(Redactor(credentials), split_at(data, cuts))
    assert out == Redactor(credentials).whole(data)
    for secret in (CREDENTIAL, FOREIGN, "header-value-secret-42", "sk-ant-api03-abcdefghijklmnop"):
        assert secret.encode() not in out
