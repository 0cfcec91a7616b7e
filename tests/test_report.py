"""The readable ``inspect`` report: what it says, and that it costs no more than ``--json``."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from app.captures import read_capture
from app.domain import runs
from app.report import render, render_json

from .helpers import corpus
from .test_runs import FILES


def logprobs_capture(chunks: int) -> bytes:
    """Chunks of one token each with its logprob entry and five alternatives (as OpenAI sends
    with ``logprobs: true, top_logprobs: 5``)."""
    lines = []
    for i in range(chunks):
        token = f" w{i % 97}"
        top = [
            {"token": f" t{k}", "logprob": -k - 0.5, "bytes": [32, 116, 48 + k]} for k in range(5)
        ]
        entry = {
            "token": token,
            "logprob": -0.25,
            "bytes": list(token.encode()),
            "top_logprobs": top,
        }
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [
                {"index": 0, "delta": {"content": token}, "logprobs": {"content": [entry]}}
            ],
        }
        lines.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    return b"".join(lines) + b"data: [DONE]\n\n"


def traced_peak(make) -> int:
    tracemalloc.start()
    try:
        make()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_readable_report_takes_no_more_memory_than_the_json_one():
    capture = read_capture(logprobs_capture(3000))
    readable = traced_peak(lambda: render(capture, "capture"))
    as_json = traced_peak(lambda: render_json(capture))
    assert readable <= as_json, (readable, as_json)


def test_the_readable_report_counts_logprob_tokens_without_reading_them():
    capture = read_capture(logprobs_capture(40))
    text = render(capture, "capture")
    assert "logprobs: 40 content tokens" in text
    refusal = render(read_capture(corpus("openai-gpt4o-refusal-logprobs.sse")), "refusal")
    expected = json.loads(render_json(read_capture(corpus("openai-gpt4o-refusal-logprobs.sse"))))
    count = len(expected["streams"][0]["completion"]["choices"][0]["logprobs"]["refusal"])
    assert f"logprobs: {count} refusal tokens" in refusal


def test_missing_values_read_unknown_never_none():
    chunk = {
        "choices": [{"index": 0, "delta": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]
    }
    error = {"error": {"message": "overloaded"}}
    data = b"data: " + json.dumps(chunk).encode() + b"\n\ndata: " + json.dumps(error).encode()
    text = render(read_capture(data + b"\n\n"), "capture")
    assert "None" not in text, text
    assert "model unknown, id unknown" in text
    assert "tool call 0: unknown (id unknown) - valid JSON" in text
    assert "STREAM ERROR: overloaded\n" in text


def test_the_readable_report_reads_every_dialect():
    """Drawn from the timeline, not from one dialect's final object: every dialect capture gets
    its answer text, reasoning and tool calls (it raised KeyError 'choices' before)."""
    from .dialects.common import DIALECT_CAPTURES, captures, expected

    for name in captures():
        want = expected(name)
        text = render(read_capture((DIALECT_CAPTURES / name).read_bytes()), name)
        assert "None" not in text.replace(want["final_text"], ""), name
        for line in want["final_text"].splitlines()[:3]:
            assert line in text, (name, line)
        for call in want["tool_calls"]:
            assert f": {call['name']} (id {call['id'] or 'unknown'})" in text, (name, call)


def test_the_readable_report_is_the_same_without_assembling_logprobs(monkeypatch):
    """It prints no logprob, so it assembles none (summarize's ``with_logprobs``): every
    capture with logprobs reads the same as when they are assembled."""
    from app import report
    from app.domain import summary

    whole = summary.summarize

    def with_logprobs(*args, **kwargs):
        kwargs["with_logprobs"] = True
        return whole(*args, **kwargs)

    names = ["openai-gpt4o-content-logprobs.sse", "openai-gpt4o-refusal-logprobs.sse"]
    for name in names:
        capture = read_capture(corpus(name))
        fast = render(capture, name)
        monkeypatch.setattr(report, "summarize", with_logprobs)
        assert render(capture, name) == fast
        monkeypatch.undo()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_report_says_the_same_from_the_folded_timeline(
    path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outputs are read from the timeline the summary folded (text runs as one): the
    report is the same as from the whole timeline, for every capture."""
    data = path.read_bytes()
    monkeypatch.setattr(runs, "SAMPLE", 0)  # nothing folded
    whole = render(read_capture(data), path.name)
    monkeypatch.setattr(runs, "SAMPLE", 1024)
    monkeypatch.setattr(runs, "MIN_RUN", 0)  # everything folded
    assert render(read_capture(data), path.name) == whole
