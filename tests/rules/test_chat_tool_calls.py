"""Trigger and near miss of the chat tool-call rules (docs/rules.md)."""

from tests.rules.kit import chunk, rules_of, sse


def call(
    index: int | None = 0, id: str | None = "call_1", name: str | None = "f", args: str = ""
) -> dict:
    fragment: dict = {"function": {"arguments": args}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
        fragment["type"] = "function"
    if name is not None:
        fragment["function"]["name"] = name
    return fragment


def test_tool_call_index_missing_triggers_on_fragments_without_index():
    body = sse(
        chunk({"role": "assistant", "tool_calls": [call(index=None)]}),
        chunk({"tool_calls": [call(index=None, id=None, name=None, args='{"a":1}')]}),
        chunk(finish="tool_calls"),
    )
    assert "tool-call-index-missing" in rules_of(body)


def test_tool_call_index_missing_near_miss_with_index():
    body = sse(
        chunk({"role": "assistant", "tool_calls": [call()]}),
        chunk({"tool_calls": [call(id=None, name=None, args='{"a":1}')]}),
        chunk(finish="tool_calls"),
    )
    assert "tool-call-index-missing" not in rules_of(body)
