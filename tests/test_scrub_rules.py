"""The scrubbing rules (app/captures/scrub/rules.py) in one place, and what they leave alone:
real captures of every dialect come out of the scrubber unchanged."""

from __future__ import annotations

import itertools
import re

import pytest

from app.captures import Capture, detect
from app.captures.scrub import sweep, sweep_pieces
from app.captures.scrub.redactions import Redactions
from app.captures.scrub.rules import (
    SECRET_COMPACT,
    SECRET_ROOTS,
    TEXT_FIELDS,
    is_secret_field,
    is_secret_header,
    is_secret_param,
)
from app.captures.scrubbing import scrub

from .helpers import CAPTURES

KEY = "sk-cnryKEY0123456789abcdefXYZ"


# ------------------------------------------------------------------ what is not a secret
def test_real_captures_come_out_of_the_scrubber_unchanged():
    """No dialect's own fields are taken for secrets: logprobs' ``token``, thinking
    ``signature``, ``max_tokens``, ``usage`` token counts. (Timed demos round-trip byte for byte.)"""
    paths = [p for p in sorted(CAPTURES.rglob("*")) if p.is_file() and p.suffix != ".md"]
    paths += sorted((CAPTURES.parent.parent / "app" / "demos").glob("*.timed.jsonl"))
    changed = []
    for path in paths:
        data = path.read_bytes()
        fmt = detect(data, Capture(format=None))
        if fmt is None:
            continue
        clean, redactions = scrub(data, fmt)
        if clean != data or redactions:
            changed.append((path.name, dict(redactions)))
    assert len(paths) > 40
    assert changed == []


def test_ordinary_fields_and_headers_are_kept():
    for name in ("content-type", "keep-alive", "x-ratelimit-remaining-tokens", "www-authenticate"):
        assert not is_secret_header(name), name
    for name in ("max_tokens", "thoughtSignature", "model", "author", "top_logprobs"):
        assert not is_secret_field(name), name
    for name in ("model", "stream", "monkey", "max_tokens", "author"):
        assert not is_secret_param(name), name


# ------------------------------------------------------------------ the rules, one place
def test_every_secret_name_holds_a_root_the_fast_patterns_look_for():
    roots = re.compile(SECRET_ROOTS, re.IGNORECASE)
    names = ["".join(name) for name in TEXT_FIELDS] + sorted(SECRET_COMPACT)
    assert [name for name in names if not roots.search(name)] == []


@pytest.mark.parametrize(
    ("cut", "expected"),
    [([3], 2), ([10, 20], 3), ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 13)],
)
def test_sweep_pieces_keeps_the_read_boundaries(cut, expected):
    text = f"a {KEY} b".encode()
    points = [0, *cut, len(text)]
    pieces = [text[a:b] for a, b in itertools.pairwise(points)]
    swept = sweep_pieces(pieces, Redactions())
    assert len(swept) == expected
    assert b"".join(swept) == sweep(text, Redactions()) == b"a [redacted] b"
