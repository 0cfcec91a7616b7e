"""Chunk boundaries are a test axis: every split point of a capture gives identical events."""

from __future__ import annotations

import itertools
import random

import pytest

from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import corpus, feed_pieces, timeline
from .sse_reference import incremental_decode, reference_decode

pytestmark = pytest.mark.slow  # every split point of each capture: exhaustive (CI runs it)

FILES = [
    "openai-gpt4o-tool-single.sse",
    "anthropic-compat-ping-data-event.sse",
    "mistral-magistral-content-parts-thinking.sse",
    "derived/openai-gpt4o-tool-parallel.crlf.sse",
    "derived/openai-gpt4o-tool-parallel.cr.sse",
    "openrouter-claude-reasoning-keepalive.sse",
    "openai-gpt4o-refusal-logprobs.sse",
]


@pytest.mark.parametrize("name", FILES)
def test_every_two_way_split_gives_identical_events(name):
    data = corpus(name)
    (reference,) = feed_pieces([data])
    expected = timeline(reference)
    assert len(reference.events) > 3
    for cut in range(1, len(data)):
        (stream,) = feed_pieces([data[:cut], data[cut:]])
        assert timeline(stream) == expected, f"split at byte {cut}"


@pytest.mark.parametrize("name", FILES)
def test_random_many_way_splits_and_single_bytes_give_identical_events(name):
    data = corpus(name)
    expected = timeline(feed_pieces([data])[0])
    rng = random.Random(name)
    for _ in range(30):
        cuts = sorted(rng.sample(range(1, len(data)), k=min(40, len(data) - 1)))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        assert timeline(feed_pieces(pieces)[0]) == expected
    assert timeline(feed_pieces([bytes([b]) for b in data])[0]) == expected


# Lines put between and inside events of the mixed-ending captures: comments (one or two
# spaces, none), unknown fields, retry and id.
EXTRA_LINES = [b": keep-alive", b":  two spaces", b":", b"x-unknown: 1", b"retry: 5", b"id: 7"]


def mixed_endings(data: bytes, seed: int) -> bytes:
    """The capture's lines joined with LF, CR and CRLF in turn, with comments and unknown
    fields between them. A CR is never followed by an empty LF-ended line: that pair would be
    one CRLF and merge two events (the reference decoder reads it so, but the capture would no
    longer mean what the original does)."""
    rng = random.Random(seed)
    endings = itertools.cycle([b"\r", b"\n", b"\r\n", b"\r", b"\r\n", b"\n"])
    out: list[bytes] = []
    previous = b"\n"
    for line in data.split(b"\n")[:-1]:
        lines = [line]
        if rng.random() < 0.4:
            lines.insert(0, rng.choice(EXTRA_LINES))
        for text in lines:
            ending = next(endings)
            if previous == b"\r" and not text and ending == b"\n":
                ending = b"\r\n"
            out.append(text + ending)
            previous = ending
    return b"".join(out)


MIXED = ["openai-gpt4o-tool-single.sse", "openrouter-claude-reasoning-keepalive.sse"]


@pytest.mark.parametrize("name", MIXED)
def test_mixed_cr_lf_crlf_with_comments_reads_as_the_original_and_as_the_reference(name):
    original = corpus(name)
    data = mixed_endings(original, seed=len(name))
    assert b"\r\n" in data and b"\r" in data.replace(b"\r\n", b"") and b":  " in data
    (whole,) = feed_pieces([data])
    (plain_lf,) = feed_pieces([original])
    assert plain(assemble(whole.events)) == plain(assemble(plain_lf.events))
    assert incremental_decode([data]) == reference_decode(data)


@pytest.mark.parametrize("name", MIXED)
def test_mixed_cr_lf_crlf_every_two_way_split_gives_identical_events(name):
    data = mixed_endings(corpus(name), seed=len(name))
    expected = timeline(feed_pieces([data])[0])
    reference = reference_decode(data)
    for cut in range(1, len(data)):
        pieces = [data[:cut], data[cut:]]
        assert incremental_decode(pieces) == reference, f"split at byte {cut}"
        assert timeline(feed_pieces(pieces)[0]) == expected, f"split at byte {cut}"


@pytest.mark.parametrize("name", MIXED)
def test_mixed_cr_lf_crlf_random_many_way_splits_and_single_bytes(name):
    data = mixed_endings(corpus(name), seed=len(name))
    expected = timeline(feed_pieces([data])[0])
    rng = random.Random(name)
    for _ in range(30):
        cuts = sorted(rng.sample(range(1, len(data)), k=min(40, len(data) - 1)))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        assert timeline(feed_pieces(pieces)[0]) == expected
    single = [bytes([b]) for b in data]
    assert timeline(feed_pieces(single)[0]) == expected
    assert incremental_decode(single) == reference_decode(data)
