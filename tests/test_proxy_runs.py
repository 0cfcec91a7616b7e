"""Runs through the recording proxy (docs/runs.md): the real openai and anthropic SDKs each run
a two-turn tool loop against the fake upstream's ``conform`` model (a tool call, then a text
answer after the tool result): one run of two calls each, its waterfall in
``GET /api/proxy/runs/<run>``; ``X-Streamscope-Run`` names a run and never reaches the
upstream; another conversation, or an edited history, is a run of its own."""

from __future__ import annotations

import json
import time
import urllib.error
import warnings
from typing import Any

import httpx
import httpx2
import pytest

from .proxy_helpers import KEY, calls, get_json, proxy_server, recording

pytestmark = pytest.mark.integration  # starts real servers on loopback

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
ANTHROPIC_WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake):
    live = proxy_server(tmp_path_factory.mktemp("proxy-runs"), fake).start()
    yield live
    live.stop()


def settled(server, count: int, timeout: float = 15) -> list[dict]:
    """The newest ``count`` calls, oldest first, once each ended with its run given."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        newest = calls(server)[:count]
        if len(newest) == count and all(
            c["state"] not in ("connecting", "streaming") and c["run"] for c in newest
        ):
            return newest[::-1]
        time.sleep(0.05)
    raise AssertionError("the calls did not settle into runs")


def waterfall(server, run: str) -> dict:
    return get_json(server, f"/api/proxy/runs/{run}")


def openai_loop(server, city: str = "Paris", *, then: Any = None, **headers: str) -> list[dict]:
    """The openai SDK's tool loop: a tool call, then the answer after its result; the second
    turn through ``then`` (another process) when given."""
    import openai

    def client_of(target: Any) -> Any:
        return openai.OpenAI(
            api_key=KEY,
            base_url=f"{target.url}/proxy/local/v1",
            max_retries=0,
            default_headers=headers or None,
            http_client=httpx.Client(),
        )

    clients = [client_of(server), client_of(then or server)]
    messages: list[Any] = [{"role": "user", "content": f"Weather in {city}?"}]
    turns = []
    for client in clients:
        calls_made: dict[int, dict] = {}
        text = []
        for chunk in client.chat.completions.create(
            model="conform", messages=messages, tools=[WEATHER], stream=True
        ):
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            text.append(delta.content or "")
            for piece in delta.tool_calls or []:
                made = calls_made.setdefault(piece.index, {"id": None, "name": "", "arguments": ""})
                made["id"] = piece.id or made["id"]
                if piece.function is not None:
                    made["name"] += piece.function.name or ""
                    made["arguments"] += piece.function.arguments or ""
        turns.append({"text": "".join(text), "calls": list(calls_made.values())})
        if not calls_made:
            break
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in calls_made.values()
                ],
            }
        )
        for c in calls_made.values():
            city_asked = json.loads(c["arguments"])["city"]
            messages.append(
                {"role": "tool", "tool_call_id": c["id"], "content": f"{city_asked}: 18C"}
            )
    for client in clients:
        client.close()
    return turns


def test_the_openai_sdk_tool_loop_is_one_run_of_two_calls(server, fake):
    turns = openai_loop(server)
    assert [len(t["calls"]) for t in turns] == [1, 0] and turns[1]["text"]
    first, second = settled(server, 2)
    assert first["run"] == second["run"]
    assert first["tool_calls"][0]["name"] == "get_weather"
    assert first["stop"] == "tool_calls" and second["stop"] == "stop"
    view = waterfall(server, first["run"])
    assert [c["id"] for c in view["calls"]] == [first["id"], second["id"]]
    one, two = view["calls"]
    assert [t["name"] for t in one["tool_calls"]] == ["get_weather"] and two["tool_calls"] == []
    assert one["url"] == f"/c/{first['recording']}" and one["ttft_ms"] > 0
    # the app sends its next call once it read the answer: the proxy may still be ending the
    # first (its last read recorded), so the second starts at most a little before that end
    assert one["duration_ms"] - 100 < two["start_ms"] and one["start_ms"] == 0
    (gap,) = view["gaps"]
    assert gap["after"] == 0 and gap["duration_ms"] >= 0
    totals = view["totals"]
    assert totals["calls"] == 2 and not view["live"]
    assert totals["model_ms"] == pytest.approx(one["duration_ms"] + two["duration_ms"], abs=0.2)
    assert totals["output_tokens"] == one["output_tokens"] + two["output_tokens"]
    listed = get_json(server, "/api/proxy/runs")["runs"]
    assert any(r["run"] == first["run"] and r["calls"] == 2 for r in listed)


def test_another_conversation_is_another_run(server, fake):
    openai_loop(server, "Tokyo")
    tokyo = settled(server, 2)
    openai_loop(server, "Lima")
    lima = settled(server, 2)
    assert tokyo[0]["run"] == tokyo[1]["run"] and lima[0]["run"] == lima[1]["run"]
    assert tokyo[0]["run"] != lima[0]["run"]


def test_an_edited_history_does_not_join(server, fake):
    openai_loop(server, "Paris")
    before = settled(server, 2)
    # the same conversation with the tool call's arguments changed
    edited = {
        "model": "conform",
        "stream": True,
        "tools": [WEATHER],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": before[0]["tool_calls"][0]["id"],
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": before[0]["tool_calls"][0]["id"], "content": "x"},
        ],
    }
    with httpx.Client(timeout=30) as client:
        answer = client.post(f"{server.url}/proxy/local/v1/chat/completions", json=edited)
        assert answer.status_code == 200
    (alone,) = settled(server, 1)
    assert alone["run"] not in (before[0]["run"], before[1]["run"])


def test_the_header_names_the_run_and_never_reaches_the_upstream(server, fake):
    openai_loop(server, "Paris", **{"X-Streamscope-Run": "my loop/1"})
    first, second = settled(server, 2)
    assert first["run"] == second["run"] == "my-loop-1"
    for sent in fake.requests[-2:]:
        assert not any(k.lower() == "x-streamscope-run" for k in sent["headers"])
        assert sent["headers"]["authorization"] == f"Bearer {KEY}"
    assert len(waterfall(server, "my-loop-1")["calls"]) == 2


def test_no_such_run_is_404(server):
    with pytest.raises(urllib.error.HTTPError) as failed:
        waterfall(server, "run-nope")
    assert failed.value.code == 404
    failed.value.close()


def test_the_anthropic_sdk_tool_loop_is_one_run_of_two_calls(server, fake):
    import anthropic

    client = anthropic.Anthropic(
        api_key=KEY,
        base_url=f"{server.url}/proxy/local",
        max_retries=0,
        http_client=httpx2.Client(),
    )
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    finals = []
    for _ in range(2):
        with (
            warnings.catch_warnings(),
            client.messages.stream(
                model="conform", max_tokens=200, messages=messages, tools=[ANTHROPIC_WEATHER]
            ) as stream,
        ):
            final = stream.get_final_message()
        finals.append(final)
        uses = [b for b in final.content if b.type == "tool_use"]
        if not uses:
            break
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in final.content],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": b.id, "content": "18C"} for b in uses
                ],
            }
        )
    client.close()
    assert [f.stop_reason for f in finals] == ["tool_use", "end_turn"]
    first, second = settled(server, 2)
    assert first["run"] == second["run"]
    view = waterfall(server, first["run"])
    assert len(view["calls"]) == 2 and len(view["gaps"]) == 1
    assert view["calls"][0]["stop"] == "tool_use"
    assert [t["name"] for t in view["calls"][0]["tool_calls"]] == ["get_weather"]
    assert view["calls"][1]["stop"] == "end_turn"
    assert view["totals"]["input_tokens"] is not None


def test_the_openai_sdk_responses_tool_loop_is_one_run(server, fake):
    import openai

    client = openai.OpenAI(api_key=KEY, base_url=f"{server.url}/proxy/local/v1", max_retries=0)
    tool = {
        "type": "function",
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    inputs: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    with client.responses.stream(model="conform", input=inputs, tools=[tool]) as stream:
        final = stream.get_final_response()
    calls_made = [item for item in final.output if item.type == "function_call"]
    assert len(calls_made) == 1
    inputs += [item.model_dump(exclude_none=True) for item in final.output]
    inputs += [
        {"type": "function_call_output", "call_id": c.call_id, "output": "18C"} for c in calls_made
    ]
    with client.responses.stream(model="conform", input=inputs, tools=[tool]) as stream:
        answer = stream.get_final_response()
    client.close()
    assert answer.output_text
    first, second = settled(server, 2)
    assert first["run"] == second["run"]
    assert [t["name"] for t in first["tool_calls"]] == ["get_weather"]
    assert len(waterfall(server, first["run"])["calls"]) == 2


def test_a_run_exports_as_one_json_lines_file_of_its_calls_captures(server, fake):
    from app.captures import read_capture

    openai_loop(server, "Lima", **{"X-Streamscope-Run": "exported"})
    first, second = settled(server, 2)
    with httpx.Client(timeout=30) as client:
        answer = client.get(f"{server.url}/api/proxy/runs/exported/export")
        missing = client.get(f"{server.url}/api/proxy/runs/nope/export")
    assert missing.status_code == 404
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/jsonl")
    assert 'filename="exported.run.jsonl"' in answer.headers["content-disposition"]
    lines = answer.content.splitlines(keepends=True)
    record = json.loads(lines[0])
    assert record == {
        "type": "run",
        "format": "streamscope.run",
        "version": 1,
        "run": "exported",
        "captures": [first["recording"], second["recording"]],
    }
    starts = [i for i, line in enumerate(lines) if json.loads(line).get("type") == "header"]
    assert len(starts) == 2 and starts[0] == 1
    pieces = [b"".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
    for piece, call in zip(pieces, (first, second), strict=True):
        raw, _ = recording(server, call["recording"])
        assert piece == raw  # each capture as it is stored
        (stream,) = read_capture(piece).streams
        assert stream.dialect_name == "chat-completions" and stream.end_reason == "done"
