"""Trigger and near miss of the Anthropic Messages rules (docs/rules.md)."""

from tests.rules.kit import findings, rules_of, sse


def start(
    id: str = "msg_1", input_tokens: int = 5, output_tokens: int = 1, **usage: object
) -> dict:
    return {
        "type": "message_start",
        "message": {
            "id": id,
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens, **usage},
        },
    }


def block(index: int = 0) -> dict:
    return {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "text", "text": ""},
    }


def text(value: str, index: int = 0) -> dict:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": value},
    }


def stop(index: int = 0) -> dict:
    return {"type": "content_block_stop", "index": index}


def delta(output_tokens: int, **usage: object) -> dict:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": output_tokens, **usage},
    }


END = {"type": "message_stop"}


def message(*events: dict, id: str = "msg_1") -> list[dict]:
    return [start(id), block(), *events, stop(), delta(3), END]


def test_message_spliced_triggers_on_a_message_start_inside_an_open_message():
    body = sse(
        start("msg_1"), block(), text("Hel"), *message(text("Hello"), id="msg_2"), done=False
    )
    found = [f for f in findings(body) if f.rule == "message-spliced"]
    assert len(found) == 1
    assert "'msg_2' starts inside message 'msg_1'" in found[0].message


def test_message_spliced_near_miss_two_messages_one_after_the_other():
    body = sse(*message(text("Hi")), *message(text("Hello"), id="msg_2"), done=False)
    assert "message-spliced" not in rules_of(body)


def test_block_not_stopped_triggers_on_a_block_open_at_the_end():
    body = sse(start(), block(), text("Hel"), delta(3), END, done=False)
    (found,) = [f for f in findings(body) if f.rule == "block-not-stopped"]
    assert found.message == "block 0 never stopped"
    assert found.raw == 1  # where the block opened


def test_block_not_stopped_near_miss_every_block_stopped():
    assert "block-not-stopped" not in rules_of(sse(*message(text("Hi")), done=False))


def test_delta_after_stop_triggers_on_a_delta_for_a_stopped_block():
    body = sse(start(), block(), text("Hel"), stop(), text("lo"), delta(3), END, done=False)
    (found,) = [f for f in findings(body) if f.rule == "delta-after-stop"]
    assert found.raw == 4 and "block 0 after it stopped" in found.message


def test_delta_after_stop_near_miss_a_delta_for_the_next_block():
    body = sse(
        start(),
        block(0),
        text("a"),
        stop(0),
        block(1),
        text("b", 1),
        stop(1),
        delta(3),
        END,
        done=False,
    )
    assert "delta-after-stop" not in rules_of(body)


def test_usage_not_cumulative_triggers_on_per_delta_counts():
    body = sse(
        start(output_tokens=1),
        block(),
        text("Hello"),
        stop(),
        delta(7),
        delta(2),
        END,
        done=False,
    )
    (found,) = [f for f in findings(body) if f.rule == "usage-not-cumulative"]
    assert "output_tokens is 2 after 7" in found.message


def test_usage_not_cumulative_triggers_on_input_tokens_reset_to_zero():
    body = sse(
        start(input_tokens=25),
        block(),
        text("Hi"),
        stop(),
        delta(5, input_tokens=0),
        END,
        done=False,
    )
    assert "usage-not-cumulative" in rules_of(body)


def test_usage_not_cumulative_near_miss_cumulative_counts():
    body = sse(
        start(input_tokens=25, output_tokens=1),
        block(),
        text("Hello"),
        stop(),
        delta(7, input_tokens=25),
        delta(9),
        END,
        done=False,
    )
    assert "usage-not-cumulative" not in rules_of(body)


def test_usage_not_cumulative_near_miss_compaction_iterations():
    """With compaction the API's top-level counts are the last iteration's (a real capture,
    tests/captures/dialects/anthropic-claude-sonnet-4-6-compaction.sse)."""
    iterations = [
        {"type": "compaction", "input_tokens": 100, "output_tokens": 83},
        {"type": "message", "input_tokens": 181, "output_tokens": 8},
    ]
    body = sse(
        start(input_tokens=100, output_tokens=7, cache_read_input_tokens=55096),
        block(), text("Hi"), stop(),
        delta(8, input_tokens=181, cache_read_input_tokens=0, iterations=iterations), END,
        done=False,
    )  # fmt: skip
    assert "usage-not-cumulative" not in rules_of(body)
