"""Chunk boundaries are a test axis: every split point of a capture gives identical events."""

from __future__ import annotations

import random

import pytest

from .helpers import corpus, feed_pieces, timeline

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
