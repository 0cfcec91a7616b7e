"""Client judges (issue 29, "Client judges"; docs/judges.md): the reference a client's reading
is held against (app/domain/judging.py) and the comparison that gives ``ok`` or ``differs``,
field by field, on real captures' summaries and on made-up readings."""

from __future__ import annotations

import pytest

from app.captures import Limits
from app.captures.ingest import ingest
from app.domain.judging import (
    MAX_SHOWN,
    difference,
    first_line,
    judged,
    judged_bytes,
    reference,
    verdict,
)
from app.domain.summary import summarize

from .helpers import corpus


def stream_of(name: str, index: int = 0):
    capture = ingest(corpus(name), None, Limits(), store=False).capture
    return capture.streams[index]


def reference_of(name: str, index: int = 0) -> dict:
    return reference(summarize(stream_of(name, index))["normalized"])


def test_the_reference_of_a_tool_call_stream_has_its_call_finish_and_usage():
    ours = reference_of("openai-gpt4o-tool-single.sse")
    assert ours == {
        "text": "",
        "reasoning": "",
        "tool_calls": [
            {
                "id": "call_c91SqDXlYFuETYv8mUHzz6pp",
                "name": "GetWeatherArgs",
                "arguments": '{"city":"Edinburgh","country":"UK","units":"c"}',
            }
        ],
        "finish": "tool_calls",
        "usage": {"prompt_tokens": 76, "completion_tokens": 24},
    }


def test_the_reference_is_of_choice_0_when_there_are_several():
    ours = reference_of("openai-gpt4o-n3-choices.sse")
    assert ours["text"] == '{"city":"San Francisco","temperature":65,"units":"f"}'
    assert ours["finish"] == "stop"


def test_the_reference_of_other_dialects_reads_the_same_fields():
    anthropic = reference_of("dialects/anthropic-claude-haiku-4-5-tool-use.sse")
    assert anthropic["finish"] == "tool_use"
    assert anthropic["tool_calls"][0]["name"] == "pelican_name_generator"
    assert anthropic["usage"] == {"prompt_tokens": 543, "completion_tokens": 40}
    reasoning = reference_of("deepseek-reasoner-reasoning-content.sse")
    assert reasoning["reasoning"].startswith("We need to count")
    gemini = reference_of("dialects/gemini-2-0-flash-function-call.sse")
    assert gemini["tool_calls"] == [
        {"id": None, "name": "get_weather", "arguments": '{"location":"San Francisco"}'}
    ]


def test_the_reference_of_nothing_is_empty():
    assert reference(None) == {
        "text": "",
        "reasoning": "",
        "tool_calls": [],
        "finish": None,
        "usage": None,
    }


def test_the_bytes_judged_are_the_streams_own_body_and_only_server_sent_events():
    data = corpus("openai-gpt4o-tool-single.sse")
    assert judged_bytes(stream_of("openai-gpt4o-tool-single.sse")) == data
    # Two streams in one documentation file: each is sliced alone.
    first, second = (judged_bytes(stream_of("chat-completion-chunk-docs.txt", i)) for i in (0, 1))
    assert first is None and second is None  # documentation blocks are no server's answer
    assert judged_bytes(stream_of("dialects/ollama-chat-llama3-text.ndjson")) is None


OURS = {
    "text": "Hello",
    "reasoning": "think",
    "tool_calls": [{"id": "call_1", "name": "f", "arguments": '{"a": 1}'}],
    "finish": "tool_calls",
    "usage": {"prompt_tokens": 3, "completion_tokens": 5},
}


def test_a_reading_that_agrees_in_every_field_it_reports_is_ok():
    theirs = {
        "text": "Hello",
        "tool_calls": [{"id": "call_1", "name": "f", "arguments": {"a": 1}}],  # parsed
        "finish": "tool_calls",
        "usage": {"prompt_tokens": 3, "completion_tokens": 5},
    }  # no reasoning: this client does not report it, so it is not compared
    assert difference(OURS, theirs) is None
    assert judged("c", "1.0", "api", OURS, theirs) == verdict("c", "1.0", "api", "ok")


@pytest.mark.parametrize(
    ("change", "field", "mine", "other"),
    [
        ({"text": "Hell"}, "text", "Hello", "Hell"),
        ({"reasoning": ""}, "reasoning", "think", ""),
        ({"finish": "stop"}, "finish", "tool_calls", "stop"),
        ({"usage": None}, "usage", OURS["usage"], None),
        (
            {"usage": {"prompt_tokens": 3, "completion_tokens": 6}},
            "usage",
            OURS["usage"],
            {"prompt_tokens": 3, "completion_tokens": 6},
        ),
        (
            {"tool_calls": [{"id": "call_1", "name": "ff", "arguments": "{}"}]},
            "tool_calls[0].name",
            "f",
            "ff",
        ),
        (
            {"tool_calls": [{"id": "call_2", "name": "f", "arguments": '{"a":1}'}]},
            "tool_calls[0].id",
            "call_1",
            "call_2",
        ),
        (
            {"tool_calls": [{"id": "call_1", "name": "f", "arguments": '{"a": 2}'}]},
            "tool_calls[0].arguments",
            '{"a": 1}',
            '{"a": 2}',
        ),
    ],
)
def test_a_reading_that_differs_names_the_field_and_both_values(change, field, mine, other):
    theirs = {**OURS, **change}
    assert difference(OURS, theirs) == (field, mine, other)
    found = judged("c", "1.0", "api", OURS, theirs)
    assert found["verdict"] == "differs" and found["field"] == field
    assert (found["ours"], found["theirs"]) == (mine, other)


def test_a_different_number_of_calls_shows_both_lists():
    found = difference(OURS, {"tool_calls": []})
    assert found == ("tool_calls", OURS["tool_calls"], [])


def test_an_id_the_stream_did_not_send_may_be_made_up_by_the_client():
    ours = {**OURS, "tool_calls": [{"id": None, "name": "f", "arguments": ""}]}
    assert (
        difference(ours, {"tool_calls": [{"id": "made-up", "name": "f", "arguments": {}}]}) is None
    )


@pytest.mark.parametrize("empty", ["", "{}", None, {}])
def test_no_arguments_is_one_value_however_it_is_spelt(empty):
    ours = {"tool_calls": [{"id": "t", "name": "f", "arguments": ""}]}
    assert difference(ours, {"tool_calls": [{"id": "t", "name": "f", "arguments": empty}]}) is None


def test_arguments_that_are_not_json_are_compared_as_text():
    ours = {"tool_calls": [{"id": "t", "name": "f", "arguments": '{"a'}]}
    assert difference(ours, {"tool_calls": [{"id": "t", "name": "f", "arguments": '{"a'}]}) is None
    assert (
        difference(ours, {"tool_calls": [{"id": "t", "name": "f", "arguments": '{"b'}]}) is not None
    )


@pytest.mark.parametrize(
    ("mine", "other", "calls", "agrees"),
    [
        ("completed", "tool-calls", True, True),  # a Responses stream that made calls
        ("completed", "tool-calls", False, False),
        ("completed", "stop", False, True),
        ("end_turn", "stop", False, True),
        ("tool_use", "tool-calls", True, True),
        ("max_output_tokens", "length", False, True),
        ("STOP", "tool-calls", True, True),  # Gemini with a function call
        ("stop", "length", False, False),
        (None, "other", False, False),
        ("tool_calls", "tool_callstool_calls", True, False),  # a finish reason added up twice
    ],
)
def test_the_sdks_own_finish_reasons_stand_for_the_dialects(mine, other, calls, agrees):
    ours = {
        "finish": mine,
        "tool_calls": [{"id": "t", "name": "f", "arguments": ""}] if calls else [],
    }
    theirs = {"finish": other}
    assert (difference(ours, theirs) is None) is agrees


def test_a_long_text_shows_where_it_differs():
    a = "x" * 5000 + "A" + "y" * 5000
    b = "x" * 5000 + "B" + "y" * 5000
    field, mine, other = difference({"text": a}, {"text": b})
    assert field == "text"
    assert len(mine) <= MAX_SHOWN + 2 and "A" in mine and "B" in other
    assert mine.startswith("…") and mine.endswith("…")


def test_a_crash_is_said_in_its_first_line():
    assert first_line("\n\nTypeError: bad\n  at x\n") == "TypeError: bad"
    assert first_line("x" * 900) == "x" * 500
