"""Two requests' differences for the compare page (app/domain/requests/diff.py): parameters
that differ, tools added, removed or changed by name, messages aligned as a shortest edit
script (an inserted message is one added row, not every later one changed), either side
possibly unknown."""

from __future__ import annotations

import re

from app.captures import read_capture
from app.demos import find
from app.domain.requests import read_request, request_view
from app.domain.requests.diff import GIST, diff_requests, gist

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def tool(name, schema=SCHEMA, description="d"):
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


def chat(**body):
    return read_request(
        {"model": "m", "messages": [{"role": "user", "content": "Hi"}]} | body,
        "chat-completions",
        method="POST",
        url="https://x.test/v1/chat/completions",
    )


def statuses(changes):
    return [(c.key, c.status) for c in changes]


def test_the_same_request_is_the_same():
    diff = diff_requests(chat(tools=[tool("a")]), chat(tools=[tool("a")]))
    assert diff.same and diff.known == (True, True)
    assert statuses(diff.line) == [("method", "same"), ("url", "same")]


def test_parameters_that_differ_and_that_one_side_lacks():
    diff = diff_requests(
        chat(temperature=0, n=2, stream_options={"include_usage": True}),
        chat(temperature=1, stream_options={"include_usage": True}, max_tokens=5),
    )
    assert statuses(diff.params) == [
        ("model", "same"),
        ("stream_options", "same"),
        ("n", "removed"),
        ("temperature", "changed"),
        ("max_tokens", "added"),
    ]
    changed = next(c for c in diff.params if c.key == "temperature")
    assert (changed.a, changed.b) == (0, 1)
    assert diff.counts("params") == {"same": 2, "changed": 1, "added": 1, "removed": 1}
    assert not diff.same


def test_a_parameter_sent_under_another_field_with_the_same_value_is_the_same():
    diff = diff_requests(chat(max_tokens=5), chat(max_completion_tokens=5))
    assert ("max_tokens", "same") in statuses(diff.params)


def test_tools_added_removed_and_changed_by_name():
    diff = diff_requests(
        chat(tools=[tool("keep"), tool("gone"), tool("schema", SCHEMA)]),
        chat(tools=[tool("schema", {"type": "object"}), tool("keep"), tool("new")]),
    )
    assert statuses(diff.tools) == [
        ("keep", "same"),
        ("gone", "removed"),
        ("schema", "changed"),
        ("new", "added"),
    ]
    changed = next(c for c in diff.tools if c.key == "schema")
    assert changed.a["schema"] == SCHEMA and changed.b["schema"] == {"type": "object"}


def test_an_inserted_message_is_one_added_row():
    base = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
    ]
    inserted = [*base[:1], {"role": "user", "content": "extra"}, *base[1:]]
    diff = diff_requests(chat(messages=base), chat(messages=inserted))
    assert statuses(diff.messages) == [
        ("A 1 / B 1", "same"),
        ("B 2", "added"),
        ("A 2 / B 3", "same"),
        ("A 3 / B 4", "same"),
    ]
    assert diff.messages[1].b == "user: extra"


def test_changed_and_removed_messages_with_tool_calls():
    call = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}}
        ],
    }
    other_call = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x":2}'}}
        ],
    }
    result = {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    diff = diff_requests(
        chat(messages=[{"role": "user", "content": "Q"}, call, result]),
        chat(messages=[{"role": "user", "content": "Q"}, other_call]),
    )
    assert statuses(diff.messages) == [
        ("A 1 / B 1", "same"),
        ("A 2 / B 2", "changed"),
        ("A 3", "removed"),
    ]
    assert diff.messages[1].a == 'assistant: calls f({"x":1})'
    assert diff.messages[1].b == 'assistant: calls f({"x":2})'
    assert diff.messages[2].a == "tool: result of c1: ok"


def test_one_side_unknown():
    diff = diff_requests(chat(temperature=1), None)
    assert diff.known == (True, False)
    assert diff.line == ()
    assert {c.status for c in diff.params} == {"removed"}
    assert {c.status for c in diff.messages} == {"removed"}
    assert diff_requests(None, None).same


def test_a_long_message_is_cut_in_its_row():
    view = chat(messages=[{"role": "user", "content": "word " * 100}])
    line = gist(view.messages[0])
    assert line.startswith("user: word word") and line.endswith("…")
    assert len(line) == len("user: ") + GIST


# ------------------------------------------------------------------ the compare page
def rows(page: str, what: str) -> dict[str, str]:
    table = re.search(rf'data-testid="compare-request-{what}">(.*?)</table>', page, re.S)
    assert table, what
    return dict(re.findall(r'<tr data-key="([^"]*)" data-status="(\w+)">', table.group(1)))


def compare_page(client, a: str, b: str) -> str:
    answer = client.get(f"/compare/demos/{a}/demos/{b}", headers={"Host": "127.0.0.1:5000"})
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_the_compare_page_shows_what_differs_between_the_two_requests(client):
    page = compare_page(client, "tool-calls-parallel", "n3-choices")
    a, b = (
        request_view(read_capture(find(name).read_bytes()).streams[0])
        for name in ("tool-calls-parallel", "n3-choices")
    )
    diff = diff_requests(a, b)
    assert rows(page, "params") == {c.key: c.status for c in diff.params}
    assert rows(page, "params")["n"] == "added"
    assert rows(page, "tools") == {"GetWeatherArgs": "removed", "get_stock_price": "removed"}
    assert rows(page, "messages") == {c.key: c.status for c in diff.messages}
    assert rows(page, "line") == {"method": "same", "url": "same"}
    assert (
        'data-testid="compare-request" aria-labelledby="request-heading" data-same="false"' in page
    )


def test_the_compare_page_says_when_no_request_is_known(client):
    page = compare_page(client, "seed-docs", "anthropic-thinking")
    assert 'data-testid="compare-request-none"' in page
    one = compare_page(client, "reasoning", "anthropic-thinking")
    assert 'data-testid="compare-request-one"' in one
    assert set(rows(one, "params").values()) == {"removed"}
