"""Every dialect capture reads as its dialect, and its ``normalized`` output (the same shape
for every dialect) says what the official SDK's result says: the answer text, the reasoning,
the tool calls with their argument strings, the stop reason, and the usage counters."""

from __future__ import annotations

import pytest

from app.domain.dialects import NAMES as REGISTERED

from .common import NAMES, captures, expected, same_arguments, summary

ALL = captures()


def test_every_dialect_of_the_test_data_is_registered():
    assert len(ALL) == 44
    wanted = {NAMES[expected(name)["dialect"]] for name in ALL}
    assert wanted <= set(REGISTERED), f"not registered: {sorted(wanted - set(REGISTERED))}"


READABLE = [n for n in ALL if NAMES[expected(n)["dialect"]] in REGISTERED]


@pytest.mark.parametrize("name", READABLE)
def test_the_dialect_is_detected_from_the_payloads(name):
    assert summary(name)["dialect"] == NAMES[expected(name)["dialect"]]


@pytest.mark.parametrize("name", READABLE)
def test_normalized_output_agrees_with_the_sdk(name):
    want = expected(name)
    normalized = summary(name)["normalized"]
    outputs = normalized["outputs"]
    assert "".join(o["text"] for o in outputs) == want["final_text"]
    assert "".join(o["reasoning"] for o in outputs) == want["reasoning_text"]
    calls = [call for o in outputs for call in o["tool_calls"]]
    assert [(c["id"], c["name"]) for c in calls] == [
        (c["id"], c["name"]) for c in want["tool_calls"]
    ]
    for ours, theirs in zip(calls, want["tool_calls"], strict=True):
        assert same_arguments(ours["arguments"], theirs["arguments"])
    assert want["stop_reason"] in [o["stop_reason"] for o in outputs]
    assert normalized["errors"] == [] or want["error"] is not None or want.get("exception")


# Where each SDK keeps the input and output counts (google-genai uses snake_case names; Cohere
# counts tokens twice, billed and actual: the actual ones are the shared counters).
USAGE_PATHS = {
    "anthropic": (("input_tokens",), ("output_tokens",)),
    "responses": (("input_tokens",), ("output_tokens",)),
    "gemini": (("prompt_token_count",), ("candidates_token_count",)),
    "ollama": (("prompt_eval_count",), ("eval_count",)),
    "completion": (("prompt_tokens",), ("completion_tokens",)),
    "cohere": (("tokens", "input_tokens"), ("tokens", "output_tokens")),
    "bedrock": (("inputTokens",), ("outputTokens",)),
}


def _at(value, path):
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


@pytest.mark.parametrize("name", READABLE)
def test_usage_counters_agree_with_the_sdk(name):
    want = expected(name)
    usage = summary(name)["normalized"]["usage"]
    if want["usage"] is None:
        assert usage is None or usage["output_tokens"] is None
        return
    input_path, output_path = USAGE_PATHS[want["dialect"]]
    assert usage["input_tokens"] == _at(want["usage"], input_path)
    assert usage["output_tokens"] == _at(want["usage"], output_path)
