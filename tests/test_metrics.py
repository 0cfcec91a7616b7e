"""Metrics with the definitions of docs/timeline.md and app/domain/metrics.py, computed only from real timing."""

from __future__ import annotations

import json

import pytest

from app.captures import read_capture
from app.domain.metrics import compute, percentile

from .helpers import corpus, feed_pieces


def event(**delta) -> bytes:
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


USAGE = b'data: {"id":"x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}\n\n'


def timed(pieces: list[tuple[float, bytes]]):
    (stream,) = feed_pieces([p for _, p in pieces], [t for t, _ in pieces])
    return compute(stream)


def test_timing_metrics_follow_the_definitions():
    metrics = timed(
        [
            (100.0, event(role="assistant", reasoning_content="think")),  # first with choices
            (150.0, event(content="A")),  # first output
            (170.0, event(content="B")),
            (600.0, event(content="C")),  # after a 430 ms stall
            (620.0, event(content="D")),
            (900.0, USAGE),  # trailing usage chunk does not extend E2EL
        ]
    )
    assert metrics.ttft_ms == 100.0
    assert metrics.ttfo_ms == 150.0
    assert metrics.e2el_ms == 620.0
    assert metrics.timing_source == "recorded" and "network read" in metrics.timing_note
    assert metrics.itl_ms == [50.0, 20.0, 430.0, 20.0]
    assert metrics.itl_p50_ms == 35.0
    assert metrics.itl_max_ms == 430.0
    assert metrics.itl_p95_ms == pytest.approx(50 + (430 - 50) * 0.85)
    assert metrics.output_tokens == 4
    assert metrics.tokens_source == "usage.completion_tokens"
    assert metrics.tpot_ms == pytest.approx((620 - 100) / 3)
    assert metrics.tokens_per_s == pytest.approx(4 / 0.62)
    assert metrics.decode_tokens_per_s == pytest.approx(3 / 0.52)
    assert metrics.stalls == [{"after_ms": 170.0, "gap_ms": 430.0, "raw": 3}]
    assert metrics.chunks == 5


def test_token_count_falls_back_to_logprobs_then_chunks():
    lp = {"content": [{"token": "a", "logprob": 0, "bytes": [97], "top_logprobs": []}] * 2}
    chunk = {"choices": [{"index": 0, "delta": {"content": "aa"}, "logprobs": lp}]}
    with_logprobs = timed([(10.0, b"data: " + json.dumps(chunk).encode() + b"\n\n")] * 3)
    assert (with_logprobs.output_tokens, with_logprobs.tokens_source) == (
        6,
        "logprobs.content entries",
    )
    plain = timed([(10.0, event(content="a")), (20.0, event(content="b"))])
    assert (plain.output_tokens, plain.tokens_source) == (2, "chunks with output text")


def test_stall_threshold_is_configurable():
    (stream,) = feed_pieces([event(content="a"), event(content="b")], [0.0, 100.0])
    assert compute(stream, stall_ms=100.0).stalls[0]["gap_ms"] == 100.0
    assert compute(stream).stalls == []


def test_no_timing_means_unknown_not_invented():
    metrics = compute(read_capture(corpus("openai-gpt4o-content-plain.sse")).streams[0])
    assert metrics.timed is False
    for name in ("ttft_ms", "ttfo_ms", "e2el_ms", "itl_p50_ms", "tpot_ms", "tokens_per_s"):
        assert getattr(metrics, name) is None
    assert metrics.itl_ms == []
    assert metrics.output_tokens is not None


def test_percentile_interpolates_linearly():
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile([5], 0.95) == 5
    assert percentile([], 0.5) is None


def test_definitions_are_worded_for_every_dialect_and_keep_their_keys():
    """Issue 12: the metrics of an Anthropic, Gemini or Ollama stream are not about "chunks
    with choices"; the definitions say what counts in every dialect (an event with output)."""
    from app.domain.metrics import DEFINITIONS

    assert set(DEFINITIONS) == {
        "ttft_ms",
        "ttfo_ms",
        "itl_ms",
        "tpot_ms",
        "e2el_ms",
        "tokens_per_s",
        "decode_tokens_per_s",
        "stalls",
        "server",
    }
    for key in ("ttft_ms", "itl_ms", "e2el_ms", "decode_tokens_per_s", "stalls"):
        assert (
            "event with output" in DEFINITIONS[key] or "events with output" in DEFINITIONS[key]
        ), key
        without_example = DEFINITIONS[key].split("(in chat completions")[0]
        assert "choices" not in without_example, key
