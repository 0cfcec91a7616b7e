"""Grouping proxied calls into runs (app/domain/callruns.py, docs/runs.md): each dialect's
next turn joins, near-misses do not."""

from __future__ import annotations

import itertools
import json
from typing import Any

from app.domain.callruns import (
    Answer,
    Grouper,
    ToolCall,
    Turn,
    best,
    continues,
    run_name,
    size_of,
)
from app.domain.requests import read_request

CALL = ToolCall("call_1", "get_weather", '{"city": "Paris"}')
TOOL_ANSWER = Answer(None, (CALL,))
USER = {"role": "user", "content": "Weather in Paris?"}


def chat(*messages: dict[str, Any]) -> Any:
    return read_request({"model": "m", "messages": list(messages)}, "chat-completions")


def chat_call_message(arguments: str = '{"city": "Paris"}', **more: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": arguments},
            }
        ],
        **more,
    }


TOOL_RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "18C"}


def test_chat_next_turn_continues() -> None:
    first = chat(USER)
    second = chat(USER, chat_call_message(), TOOL_RESULT)
    assert continues(second, first, TOOL_ANSWER)


def test_chat_arguments_compared_as_json() -> None:
    first = chat(USER)
    second = chat(USER, chat_call_message('{ "city":"Paris" }'), TOOL_RESULT)
    assert continues(second, first, TOOL_ANSWER)
    other = chat(USER, chat_call_message('{"city": "Rome"}'), TOOL_RESULT)
    assert not continues(other, first, TOOL_ANSWER)


def test_chat_near_misses() -> None:
    first = chat(USER)
    # the tool call's id differs
    wrong_id = chat_call_message()
    wrong_id["tool_calls"][0]["id"] = "call_2"
    assert not continues(chat(USER, wrong_id, TOOL_RESULT), first, TOOL_ANSWER)
    # the history was edited
    edited = {"role": "user", "content": "Weather in Rome?"}
    assert not continues(chat(edited, chat_call_message(), TOOL_RESULT), first, TOOL_ANSWER)
    # the answer was not sent back, or nothing came after it
    assert not continues(chat(USER, TOOL_RESULT), first, TOOL_ANSWER)
    assert not continues(chat(USER, chat_call_message()), first, TOOL_ANSWER)
    # the same messages again (a retry) is not a next turn
    assert not continues(chat(USER), first, TOOL_ANSWER)
    # another dialect's body never continues
    assert not continues(
        read_request({"model": "m", "input": "Weather in Paris?"}, "openai-responses"),
        first,
        TOOL_ANSWER,
    )


def test_chat_text_answer_then_user_turn() -> None:
    first = chat(USER)
    answer = Answer("It is 18C.", ())
    said = {"role": "assistant", "content": "It is 18C."}
    more = {"role": "user", "content": "And tomorrow?"}
    assert continues(chat(USER, said, more), first, answer)
    changed = {"role": "assistant", "content": "It is warm."}
    assert not continues(chat(USER, changed, more), first, answer)


def anthropic(*messages: dict[str, Any]) -> Any:
    body = {"model": "m", "max_tokens": 100, "system": "be brief", "messages": list(messages)}
    return read_request(body, "anthropic-messages")


def test_anthropic_tool_use_then_tool_result() -> None:
    call = ToolCall("toolu_1", "get_weather", '{"city":"Paris"}')
    answer = Answer("Let me look.", (call,))
    first = anthropic(USER)
    turn = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
        ],
    }
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"}],
    }
    assert continues(anthropic(USER, turn, result), first, answer)
    # the text sent back differs from what it said
    edited = json.loads(json.dumps(turn))
    edited["content"][0]["text"] = "Let me check."
    assert not continues(anthropic(USER, edited, result), first, answer)
    # another input sent back for the call
    other = json.loads(json.dumps(turn))
    other["content"][1]["input"] = {"city": "Lyon"}
    assert not continues(anthropic(USER, other, result), first, answer)


def responses(items: Any, **more: Any) -> Any:
    return read_request({"model": "m", "input": items, **more}, "openai-responses")


def test_responses_function_call_items() -> None:
    answer = Answer(None, (ToolCall("call_9", "get_weather", '{"city":"Paris"}'),))
    first = responses([{"role": "user", "content": "Weather in Paris?"}])
    second = responses(
        [
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "reasoning", "summary": []},
            {
                "type": "function_call",
                "call_id": "call_9",
                "name": "get_weather",
                "arguments": '{"city":"Paris"}',
            },
            {"type": "function_call_output", "call_id": "call_9", "output": "18C"},
        ]
    )
    assert continues(second, first, answer)
    missing = responses(
        [
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "function_call_output", "call_id": "call_9", "output": "18C"},
        ]
    )
    assert not continues(missing, first, answer)


def test_responses_previous_response_id() -> None:
    answer = Answer(None, (), response_id="resp_1")
    first = responses("Weather in Paris?")
    second = responses([{"type": "function_call_output", "call_id": "c", "output": "18C"}])
    assert continues(second, first, answer, previous_response="resp_1")
    assert not continues(second, first, answer, previous_response="resp_2")
    assert not continues(second, first, Answer(), previous_response="resp_1")


def test_answer_from_normalized_output() -> None:
    output = {
        "text": "hi",
        "tool_calls": [{"id": "c", "name": "f", "arguments": "{}"}, "junk"],
        "stop_reason": "tool_calls",
    }
    assert Answer.from_output(output) == Answer("hi", (ToolCall("c", "f", "{}"),))
    assert Answer.from_output(None) == Answer()


def test_best_takes_the_last_turn() -> None:
    first = chat(USER)
    second_messages = (USER, chat_call_message(), TOOL_RESULT)
    second = chat(*second_messages)
    call2 = ToolCall("call_2", "get_weather", '{"city": "Lyon"}')
    turn2 = chat_call_message('{"city": "Lyon"}')
    turn2["tool_calls"][0]["id"] = "call_2"
    third = chat(
        *second_messages, turn2, {"role": "tool", "tool_call_id": "call_2", "content": "x"}
    )
    earlier = [
        Turn("a", "run-1", first, TOOL_ANSWER, 1.0),
        Turn("b", "run-1", second, Answer(None, (call2,)), 2.0),
    ]
    found = best(third, earlier)
    assert found is not None and found.call == "b"
    assert best(chat({"role": "user", "content": "else"}), earlier) is None


def test_run_name() -> None:
    assert run_name("  my run/1 ") == "my-run-1"
    assert run_name("x" * 500) == "x" * 100
    assert run_name("///") is None
    assert run_name(None) is None


def grouper(**caps: Any) -> tuple[Grouper, list[float], Any]:
    now = [100.0]
    names = (f"run-{n}" for n in itertools.count(1))
    return Grouper(lambda: now[0], **caps), now, lambda: next(names)


SECOND = (USER, chat_call_message(), TOOL_RESULT)


def test_grouper_two_parallel_conversations_stay_apart() -> None:
    g, now, new = grouper()
    other_user = {"role": "user", "content": "Weather in Oslo?"}
    oslo = ToolCall("call_1", "get_weather", '{"city": "Oslo"}')
    a1 = g.assign("k", "a1", chat(USER), TOOL_ANSWER, at=now[0], new_run=new)
    b1 = g.assign("k", "b1", chat(other_user), Answer(None, (oslo,)), at=now[0], new_run=new)
    a2_view = chat(*SECOND)
    b2_view = chat(other_user, chat_call_message('{"city": "Oslo"}'), TOOL_RESULT)
    assert g.match("k", a2_view) == "run-1" and g.match("k", b2_view) == "run-2"
    a2 = g.assign("k", "a2", a2_view, Answer("18C"), at=now[0], new_run=new)
    b2 = g.assign("k", "b2", b2_view, Answer("5C"), at=now[0], new_run=new)
    assert (a1, b1, a2, b2) == ("run-1", "run-2", "run-1", "run-2")
    # another key (client, upstream) never joins
    assert g.match("other", a2_view) is None
    assert g.assign("other", "c", a2_view, Answer(), at=now[0], new_run=new) == "run-3"


def test_grouper_expired_and_full_runs_are_not_continued() -> None:
    g, now, new = grouper(max_age_s=10.0, max_calls=2)
    second = chat(*SECOND)
    assert g.assign("k", "a", chat(USER), TOOL_ANSWER, at=now[0], new_run=new) == "run-1"
    assert g.assign("k", "b", second, Answer("x"), at=now[0], new_run=new) == "run-1"
    # run-1 holds max_calls now
    assert g.match("k", second) is None
    assert g.assign("k", "c", chat(USER), TOOL_ANSWER, at=now[0], new_run=new) == "run-2"
    now[0] += 11  # c was made at 100: too old now for a later call
    assert g.match("k", second) is None
    assert g.assign("k", "d", second, Answer(), at=now[0], new_run=new) == "run-3"


def test_grouper_given_run_and_cap_on_kept() -> None:
    g, now, new = grouper(kept=2)
    assert g.assign("k", "a", chat(USER), TOOL_ANSWER, at=now[0], run="loop", new_run=new) == (
        "loop"
    )
    assert g.match("k", chat(*SECOND)) == "loop"
    for n in range(2):  # push "a" out of the two kept
        view = chat({"role": "user", "content": str(n)})
        g.assign("k", f"x{n}", view, Answer("t"), at=now[0], new_run=new)
    assert g.match("k", chat(*SECOND)) is None
    # a call with no readable request is its own run, and is not kept
    assert g.assign("k", "y", None, Answer(), at=now[0], new_run=new) == "run-3"


def test_grouper_previous_response_without_a_view() -> None:
    g, now, new = grouper()
    view = responses("hi")
    g.assign("k", "a", view, Answer(None, (), "resp_7"), at=now[0], new_run=new)
    assert g.match("k", None, "resp_7") == "run-1"
    assert g.match("k", None, "resp_8") is None


def test_grouper_add_from_elsewhere() -> None:
    g, now, new = grouper()
    g.add("k", Turn("a", "remote", chat(USER), TOOL_ANSWER, 100.0))
    g.add("k", Turn("a", "remote", chat(USER), TOOL_ANSWER, 100.0))  # once
    assert g.assign("k", "b", chat(*SECOND), Answer(), at=now[0], new_run=new) == "remote"


def test_grouper_lets_the_oldest_go_past_its_characters():
    g, now, new = grouper(max_chars=size_of(chat(USER)) * 2)
    g.assign("k", "a", chat(USER), TOOL_ANSWER, at=now[0], new_run=new)
    assert g.match("k", chat(*SECOND)) == "run-1"
    big = chat({"role": "user", "content": "x" * 100})
    g.assign("k", "b", big, Answer("t"), at=now[0], new_run=new)  # past the budget: a goes
    assert g.match("k", chat(*SECOND)) is None
