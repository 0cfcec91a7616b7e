"""Trigger and near miss of the OpenAI Responses rules (docs/rules.md)."""

from tests.rules.kit import findings, rules_of, sse


def response(status: str) -> dict:
    return {"id": "resp_1", "object": "response", "status": status, "model": "m", "output": []}


def events(*middle: dict) -> bytes:
    """A whole Responses stream around ``middle``, numbered in order from 0."""
    every = [
        {"type": "response.created", "response": response("in_progress")},
        *middle,
        {"type": "response.completed", "response": response("completed")},
    ]
    return sse(*({**e, "sequence_number": n} for n, e in enumerate(every)), done=False)


def message_item(id: str = "msg_1", text: str = "") -> dict:
    content = [{"type": "output_text", "text": text, "annotations": []}] if text else []
    return {
        "id": id,
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": content,
    }


def added(item: dict, index: int = 0) -> dict:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(item: dict, index: int = 0) -> dict:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def delta(text: str, item_id: str = "msg_1") -> dict:
    return {
        "type": "response.output_text.delta",
        "item_id": item_id,
        "output_index": 0,
        "content_index": 0,
        "delta": text,
    }


def text_done(text: str, item_id: str = "msg_1") -> dict:
    return {
        "type": "response.output_text.done",
        "item_id": item_id,
        "output_index": 0,
        "content_index": 0,
        "text": text,
    }


def text_message(
    *parts: str, done_text: str | None = None, ids: tuple[str, ...] = ()
) -> list[dict]:
    ids = ids or ("msg_1",) * len(parts)
    whole = "".join(parts) if done_text is None else done_text
    return [
        added(message_item()),
        *(delta(part, item_id) for part, item_id in zip(parts, ids, strict=True)),
        text_done(whole),
        done(message_item(text=whole)),
    ]


def call(call_id: str, id: str = "fc_1", arguments: str = "") -> dict:
    return {
        "id": id,
        "type": "function_call",
        "call_id": call_id,
        "name": "f",
        "arguments": arguments,
    }


def test_sequence_gap_triggers_on_a_skipped_number():
    every = [
        {"type": "response.created", "response": response("in_progress"), "sequence_number": 0},
        {**added(message_item()), "sequence_number": 1},
        {**delta("Hi"), "sequence_number": 4},
        {"type": "response.completed", "response": response("completed"), "sequence_number": 5},
    ]
    (found,) = [f for f in findings(sse(*every, done=False)) if f.rule == "sequence-gap"]
    assert found.raw == 2 and "jumps from 1 to 4: 2 event(s) missing" in found.message


def test_sequence_gap_near_miss_numbers_in_order():
    assert "sequence-gap" not in rules_of(events(*text_message("Hel", "lo")))


def test_item_id_changed_triggers_on_a_delta_naming_another_id():
    body = events(*text_message("Hel", "lo", ids=("msg_1", "msg_2")))
    (found,) = [f for f in findings(body) if f.rule == "item-id-changed"]
    assert "names item 'msg_2', added as 'msg_1'" in found.message


def test_item_id_changed_triggers_on_a_done_item_with_another_id():
    body = events(
        added(message_item()), delta("Hi"), text_done("Hi"), done(message_item("msg_9", "Hi"))
    )
    assert "item-id-changed" in rules_of(body)


def test_item_id_changed_near_miss_one_id_throughout():
    assert "item-id-changed" not in rules_of(events(*text_message("Hel", "lo")))


def test_call_id_changed_triggers_on_a_done_call_with_another_call_id():
    body = events(
        added(call("call_a")),
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 0,
            "delta": "{}",
        },
        done(call("call_b", arguments="{}")),
    )
    (found,) = [f for f in findings(body) if f.rule == "call-id-changed"]
    assert "call_id 'call_b' at its done, 'call_a' when added" in found.message


def test_call_id_changed_near_miss_the_same_call_id():
    body = events(
        added(call("call_a")),
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 0,
            "delta": "{}",
        },
        done(call("call_a", arguments="{}")),
    )
    assert "call-id-changed" not in rules_of(body)


def test_done_mismatch_triggers_on_a_done_text_other_than_the_deltas():
    (found,) = [
        f
        for f in findings(events(*text_message("Hel", "lo", done_text="Hello!")))
        if f.rule == "done-mismatch"
    ]
    assert "output_text.done for output 0: its text differs" in found.message


def test_done_mismatch_near_miss_the_deltas_add_up():
    assert "done-mismatch" not in rules_of(events(*text_message("Hel", "lo")))
