"""A stream's request read into one view for every dialect (app/domain/requests/,
docs/timeline.md, "The request"): the parameters that shape a stream under their common names
with each dialect's own field, the tools with their schemas, the messages by role with tool
calls and tool results, read from each dialect's own request shape (the bodies below follow
each API reference's examples, linked in the reader's docstring); and the request reaching the
view from a HAR entry's ``postData`` and a timed capture's header, its URL scrubbed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from app import protocol
from app.captures import read_capture
from app.domain.dialects import NAMES
from app.domain.findings.request import RequestParams, request_params
from app.domain.requests import READERS, read_request, request_view
from app.domain.requests.model import MAX_TEXT, PARAM_NAMES, PART_KINDS, RequestView
from app.wire import stream_info
from tests.helpers import corpus

ROOT = Path(__file__).resolve().parent.parent


def params(view: RequestView) -> dict:
    return {p.name: (p.field, p.value) for p in view.params}


def parts(view: RequestView) -> list[tuple]:
    """Each part as (role, kind, text, name, id, arguments)."""
    return [
        (m.role, p.kind, p.text, p.name, p.id, p.arguments) for m in view.messages for p in m.parts
    ]


def test_every_dialect_has_a_reader_and_every_reader_a_dialect():
    assert set(READERS) == set(NAMES)


WEATHER = {
    "type": "object",
    "properties": {"location": {"type": "string"}},
    "required": ["location"],
}


def test_chat_completions_request():
    body = {
        "model": "gpt-4o",
        "stream": True,
        "stream_options": {"include_usage": True},
        "n": 2,
        "max_completion_tokens": 300,
        "temperature": 0.2,
        "tool_choice": "auto",
        "logprobs": True,
        "top_logprobs": 3,
        "response_format": {"type": "json_object"},
        "user": "ignored: not a parameter that shapes a stream",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather at a place",
                    "parameters": WEATHER,
                },
            }
        ],
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "18 C"},
        ],
    }
    view = read_request(body, "chat-completions", method="POST", url="https://x.test/v1/chat")
    assert params(view) == {
        "model": ("model", "gpt-4o"),
        "stream": ("stream", True),
        "stream_options": ("stream_options", {"include_usage": True}),
        "n": ("n", 2),
        "max_tokens": ("max_completion_tokens", 300),
        "temperature": ("temperature", 0.2),
        "tool_choice": ("tool_choice", "auto"),
        "response_format": ("response_format", {"type": "json_object"}),
        "logprobs": ("logprobs", True),
        "top_logprobs": ("top_logprobs", 3),
    }
    assert [(t.name, t.kind, t.description, t.schema) for t in view.tools] == [
        ("get_weather", "function", "Weather at a place", WEATHER)
    ]
    assert parts(view) == [
        ("system", "text", "Be brief.", None, None, None),
        ("user", "text", "Weather in Paris?", None, None, None),
        ("assistant", "tool_call", None, "get_weather", "call_1", '{"location":"Paris"}'),
        ("tool", "tool_result", "18 C", None, "call_1", None),
    ]
    assert (view.method, view.url, view.dialect, view.note) == (
        "POST",
        "https://x.test/v1/chat",
        "chat-completions",
        None,
    )


def test_anthropic_messages_request():
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "stream": True,
        "system": [{"type": "text", "text": "You are terse."}],
        "thinking": {"type": "enabled", "budget_tokens": 2000},
        "tool_choice": {"type": "auto"},
        "tools": [
            {"name": "get_weather", "description": "Weather", "input_schema": WEATHER},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Use the tool.", "signature": "sig"},
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"location": "Paris"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "18 C"}],
                        "is_error": True,
                    },
                    {"type": "image", "source": {"type": "base64", "data": "AAAA"}},
                ],
            },
        ],
    }
    view = read_request(body, "anthropic-messages")
    assert params(view) == {
        "model": ("model", "claude-sonnet-4-5"),
        "stream": ("stream", True),
        "max_tokens": ("max_tokens", 1024),
        "tool_choice": ("tool_choice", {"type": "auto"}),
        "reasoning": ("thinking", {"type": "enabled", "budget_tokens": 2000}),
    }
    assert [(t.name, t.kind, t.schema) for t in view.tools] == [
        ("get_weather", "custom", WEATHER),
        ("web_search", "web_search_20250305", None),
    ]
    assert parts(view) == [
        ("system", "text", "You are terse.", None, None, None),
        ("user", "text", "Weather in Paris?", None, None, None),
        ("assistant", "thinking", "Use the tool.", None, None, None),
        ("assistant", "text", "Checking.", None, None, None),
        ("assistant", "tool_call", None, "get_weather", "toolu_1", '{\n  "location": "Paris"\n}'),
        ("user", "tool_result", "18 C", None, "toolu_1", None),
        ("user", "other", "image", None, None, None),
    ]
    assert view.messages[3].parts[0].error is True


def test_responses_request():
    body = {
        "model": "gpt-4.1",
        "stream": True,
        "instructions": "Be brief.",
        "max_output_tokens": 500,
        "text": {"format": {"type": "json_schema", "name": "w", "schema": WEATHER}},
        "include": ["message.output_text.logprobs"],
        "top_logprobs": 2,
        "tools": [
            {"type": "function", "name": "get_weather", "parameters": WEATHER},
            {"type": "web_search"},
        ],
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Hm"}],
            },
            {
                "type": "function_call",
                "call_id": "call_9",
                "name": "get_weather",
                "arguments": '{"location":"Paris"}',
            },
            {"type": "function_call_output", "call_id": "call_9", "output": "18 C"},
        ],
    }
    view = read_request(body, "openai-responses")
    assert params(view) == {
        "model": ("model", "gpt-4.1"),
        "stream": ("stream", True),
        "max_tokens": ("max_output_tokens", 500),
        "response_format": ("text.format", body["text"]["format"]),
        "top_logprobs": ("top_logprobs", 2),
        "include": ("include", ["message.output_text.logprobs"]),
    }
    assert [(t.name, t.kind) for t in view.tools] == [
        ("get_weather", "function"),
        (None, "web_search"),
    ]
    assert parts(view) == [
        ("instructions", "text", "Be brief.", None, None, None),
        ("user", "text", "Weather in Paris?", None, None, None),
        ("assistant", "thinking", "Hm", None, None, None),
        ("assistant", "tool_call", None, "get_weather", "call_9", '{"location":"Paris"}'),
        ("tool", "tool_result", "18 C", None, "call_9", None),
    ]
    assert parts(read_request({"model": "m", "input": "Hi"}, "openai-responses")) == [
        ("user", "text", "Hi", None, None, None)
    ]


def test_gemini_request_reads_camel_and_snake_case_and_the_model_from_the_url():
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent"
    body = {
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"maxOutputTokens": 256, "temperature": 0.5, "candidateCount": 1},
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        "tools": [
            {"functionDeclarations": [{"name": "get_weather", "parameters": WEATHER}]},
            {"googleSearch": {}},
        ],
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Let me think", "thought": True},
                    {"function_call": {"name": "get_weather", "args": {"location": "Paris"}}},
                ],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "get_weather", "response": {"t": 18}}}],
            },
        ],
    }
    view = read_request(body, "gemini", url=url)
    assert params(view) == {
        "model": ("URL", "gemini-2.0-flash"),
        "stream": ("URL", True),
        "n": ("generationConfig.candidateCount", 1),
        "max_tokens": ("generationConfig.maxOutputTokens", 256),
        "temperature": ("generationConfig.temperature", 0.5),
        "tool_choice": ("toolConfig.functionCallingConfig", {"mode": "ANY"}),
    }
    assert [(t.name, t.kind, t.schema) for t in view.tools] == [
        ("get_weather", "function", WEATHER),
        ("googleSearch", "googleSearch", None),
    ]
    assert parts(view) == [
        ("system", "text", "Be brief.", None, None, None),
        ("user", "text", "Weather in Paris?", None, None, None),
        ("model", "thinking", "Let me think", None, None, None),
        ("model", "tool_call", None, "get_weather", None, '{\n  "location": "Paris"\n}'),
        ("user", "tool_result", '{\n  "t": 18\n}', "get_weather", None, None),
    ]


def test_ollama_chat_and_generate_requests():
    chat = {
        "model": "llama3.2",
        "stream": True,
        "options": {"num_predict": 64, "temperature": 0},
        "format": "json",
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "get_weather", "arguments": {"location": "Paris"}}}
                ],
            },
            {"role": "tool", "tool_name": "get_weather", "content": "18 C"},
        ],
    }
    view = read_request(chat, "ollama")
    assert params(view) == {
        "model": ("model", "llama3.2"),
        "stream": ("stream", True),
        "max_tokens": ("options.num_predict", 64),
        "temperature": ("options.temperature", 0),
        "response_format": ("format", "json"),
    }
    assert parts(view) == [
        ("user", "text", "Weather in Paris?", None, None, None),
        ("assistant", "tool_call", None, "get_weather", None, '{\n  "location": "Paris"\n}'),
        ("tool", "tool_result", "18 C", "get_weather", None, None),
    ]
    generate = read_request({"model": "llama3", "system": "S", "prompt": "Why?"}, "ollama")
    assert parts(generate) == [
        ("system", "text", "S", None, None, None),
        ("prompt", "text", "Why?", None, None, None),
    ]


def test_legacy_completions_request():
    body = {
        "model": "gpt-3.5-turbo-instruct",
        "prompt": ["Say this", "Say that"],
        "suffix": "end",
        "max_tokens": 7,
        "logprobs": 2,
        "n": 1,
        "stream": True,
    }
    view = read_request(body, "completions")
    assert params(view)["logprobs"] == ("logprobs", 2)
    assert params(view)["max_tokens"] == ("max_tokens", 7)
    assert [(m.role, m.parts[0].text) for m in view.messages] == [
        ("prompt", "Say this"),
        ("prompt", "Say that"),
        ("suffix", "end"),
    ]
    assert view.tools == ()


def test_cohere_v2_request():
    body = {
        "model": "command-a-03-2025",
        "stream": True,
        "tool_choice": "REQUIRED",
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "tool_plan": "I will call the tool.",
                "tool_calls": [
                    {
                        "id": "get_weather_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "get_weather_1",
                "content": [{"type": "document", "document": {"data": "18 C"}}],
            },
        ],
    }
    view = read_request(body, "cohere")
    assert params(view)["tool_choice"] == ("tool_choice", "REQUIRED")
    assert parts(view)[:3] == [
        ("user", "text", "Weather in Paris?", None, None, None),
        ("assistant", "thinking", "I will call the tool.", None, None, None),
        ("assistant", "tool_call", None, "get_weather", "get_weather_1", '{"location":"Paris"}'),
    ]
    assert parts(view)[3][:2] == ("tool", "tool_result")
    assert parts(view)[3][4] == "get_weather_1"


def test_bedrock_converse_request():
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-sonnet-20240229-v1%3A0/converse-stream"
    body = {
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 512, "temperature": 0.1},
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "get_weather",
                        "description": "Weather",
                        "inputSchema": {"json": WEATHER},
                    }
                }
            ],
            "toolChoice": {"auto": {}},
        },
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Paris?"}]},
            {
                "role": "assistant",
                "content": [
                    {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"l": 1}}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "tu_1",
                            "content": [{"text": "18 C"}],
                            "status": "error",
                        }
                    }
                ],
            },
        ],
    }
    view = read_request(body, "bedrock-converse", url=url)
    assert params(view) == {
        "model": ("URL", "anthropic.claude-3-sonnet-20240229-v1:0"),
        "stream": ("URL", True),
        "max_tokens": ("inferenceConfig.maxTokens", 512),
        "temperature": ("inferenceConfig.temperature", 0.1),
        "tool_choice": ("toolConfig.toolChoice", {"auto": {}}),
    }
    assert [(t.name, t.schema) for t in view.tools] == [("get_weather", WEATHER)]
    assert parts(view) == [
        ("system", "text", "Be brief.", None, None, None),
        ("user", "text", "Weather in Paris?", None, None, None),
        ("assistant", "tool_call", None, "get_weather", "tu_1", '{\n  "l": 1\n}'),
        ("user", "tool_result", "18 C", None, "tu_1", None),
    ]
    assert view.messages[3].parts[0].error is True


def test_an_unknown_dialect_is_read_by_the_shape_of_its_body():
    assert read_request({"contents": []}, None).dialect == "gemini"
    assert read_request({"input": "x"}, None).dialect == "openai-responses"
    assert read_request({"prompt": "x"}, None).dialect == "completions"
    assert read_request({"messages": []}, None).dialect == "chat-completions"
    assert read_request({"messages": []}, None, url="http://h/api/chat").dialect == "ollama"
    assert read_request({"weird": 1}, None).note == "no reader knows this body's shape"


@pytest.mark.parametrize("name", sorted(READERS))
@pytest.mark.parametrize(
    "body",
    [
        {"messages": "not a list", "tools": {"a": 1}, "contents": 3, "input": 4, "system": 5},
        {"messages": [None, 1, "x", {"role": 3, "content": {"a": 1}, "tool_calls": "no"}]},
        {"messages": [{"role": "user", "content": [None, 1, {"type": 2}]}], "tools": [None, 1]},
        {"input": [None, {"type": "function_call"}], "contents": [{"parts": [None, {}]}]},
        {"toolConfig": {"tools": [None, {"toolSpec": 1}]}, "messages": [{"content": [{}]}]},
        {"prompt": {"a": 1}, "options": "x", "generationConfig": [1], "system": {"x": 1}},
    ],
)
def test_odd_bodies_never_raise_and_keep_their_kinds(name, body):
    view = read_request(body, name)
    assert view.dialect == name
    json.dumps(view.to_json())
    assert all(p.name in PARAM_NAMES for p in view.params)
    assert all(part.kind in PART_KINDS for m in view.messages for part in m.parts)


def test_a_body_that_is_not_an_object_says_so():
    for body in ([1, 2], "text", None, 3):
        view = read_request(body, "chat-completions")
        assert view.note == "the request body is not a JSON object"
        assert view.params == view.messages == view.tools == ()


def test_a_long_text_is_cut_and_counted():
    view = read_request({"messages": [{"role": "user", "content": "a" * (MAX_TEXT + 5)}]}, None)
    shown = view.messages[0].parts[0].text
    assert shown == "a" * MAX_TEXT + "… (5 more characters)"


# ------------------------------------------------------------------ from captures
def har(post: object, url: str = "https://u:pw@x.test/v1/chat/completions?key=SECRET") -> bytes:
    entry = {
        "request": {
            "method": "POST",
            "url": url,
            "headers": [],
            "postData": {"mimeType": "application/json", "text": json.dumps(post)},
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {
                "mimeType": "text/event-stream",
                "text": corpus("openai-gpt4o-tool-single.sse").decode(),
            },
        },
    }
    return json.dumps({"log": {"version": "1.2", "entries": [entry]}}).encode()


def test_a_har_entrys_posted_body_and_its_scrubbed_url():
    body = {
        "model": "gpt-4o",
        "stream": True,
        "tools": [{"type": "function", "function": {"name": "GetWeatherArgs", "parameters": {}}}],
        "messages": [{"role": "user", "content": "What's the weather like in Edinburgh?"}],
    }
    stream = read_capture(har(body)).streams[0]
    view = request_view(stream)
    assert view is not None
    assert (view.method, view.url, view.source, view.dialect) == (
        "POST",
        "https://x.test/v1/chat/completions",
        "har",
        "chat-completions",
    )
    assert params(view)["model"] == ("model", "gpt-4o")
    assert [t.name for t in view.tools] == ["GetWeatherArgs"]
    assert parts(view) == [
        ("user", "text", "What's the weather like in Edinburgh?", None, None, None)
    ]
    assert "SECRET" not in json.dumps(view.to_json()) and "pw" not in view.url


def test_a_har_entry_without_a_json_body_says_so():
    data = har({}).replace(b'"text": "{}"', b'"text": "a=1&b=2"')
    view = request_view(read_capture(data).streams[0])
    assert view is not None and view.note == "the entry posted no JSON body"
    listed = request_view(read_capture(har([1, 2])).streams[0])
    assert listed is not None and listed.note == "the request body is not a JSON object"


def timed(header: dict) -> bytes:
    lines = [
        {"type": "header", "format": "streamscope.timed", "version": 1, "created": "x", **header},
        {
            "type": "read",
            "t": 5.0,
            "text": 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
        },
        {"type": "end", "t": 6.0, "reason": "done"},
    ]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_a_timed_captures_request_with_its_method_and_scrubbed_url():
    data = timed(
        {
            "source": {
                "url": "https://u:pw@x.test/v1/chat/completions?api_key=SECRET",
                "kind": "live",
            },
            "api": "chat",
            "request": {"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
        }
    )
    view = request_view(read_capture(data).streams[0])
    assert view is not None
    assert view.method == "POST" and view.source == "recording"
    assert view.url is not None and view.url.startswith("https://x.test/v1/chat/completions?")
    assert "SECRET" not in view.url and "pw" not in view.url
    assert parts(view) == [("user", "text", "Hi", None, None, None)]
    proxied = timed(
        {
            "source": {"url": "https://x.test/v1/responses", "method": "PUT"},
            "request": {"input": "x"},
        }
    )
    assert request_view(read_capture(proxied).streams[0]).method == "PUT"


def test_a_capture_without_a_request_has_no_view():
    assert request_view(read_capture(corpus("openai-gpt4o-tool-single.sse")).streams[0]) is None
    empty = timed({"source": {"url": "https://x.test/v1/chat/completions"}, "request": {}})
    assert request_view(read_capture(empty).streams[0]) is None


def test_a_proxied_body_that_was_not_json_is_named_not_shown():
    data = timed({"source": {}, "request": {"body": "12 bytes, not a JSON object (not recorded)"}})
    view = request_view(read_capture(data).streams[0])
    assert view is not None and view.note == "12 bytes, not a JSON object (not recorded)"


# ------------------------------------------------------------------ inspect --json
def inspect_json(path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", str(path), "--json"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_inspect_json_gives_each_streams_request_and_null_when_unknown(tmp_path):
    demo = ROOT / "app" / "demos" / "tool-calls-parallel.timed.jsonl"
    header = json.loads(demo.read_bytes().split(b"\n", 1)[0])
    request = inspect_json(demo)["streams"][0]["request"]
    assert request == request_view(read_capture(demo.read_bytes()).streams[0]).to_json()
    assert request["url"] == header["source"]["url"]
    assert [t["name"] for t in request["tools"]] == [
        t["function"]["name"] for t in header["request"]["tools"]
    ]
    assert [m["role"] for m in request["messages"]] == [
        m["role"] for m in header["request"]["messages"]
    ]
    plain = tmp_path / "plain.sse"
    plain.write_bytes(corpus("openai-gpt4o-tool-single.sse"))
    assert inspect_json(plain)["streams"][0]["request"] is None


# ------------------------------------------------------------------ the rules read the view
def test_the_request_aware_rules_read_the_view():
    body = {
        "model": "m",
        "messages": [],
        "stream_options": {"include_usage": True},
        "n": 3,
        "logprobs": True,
        "top_logprobs": 2,
        "max_completion_tokens": 9,
        "tool_choice": "required",
        "tools": [{"type": "function"}, {"type": "function"}],
    }
    assert request_params(read_request(body, "chat-completions")) == RequestParams(
        include_usage=True,
        n=3,
        logprobs=True,
        top_logprobs=2,
        max_tokens=9,
        tool_choice="required",
        tools=2,
    )
    legacy = read_request({"prompt": "x", "logprobs": 2}, "completions")
    assert request_params(legacy).logprobs is None  # a count, not the chat flag
    assert request_params(read_request([1], "chat-completions")) is None
    assert request_params(None) is None


def test_a_recorded_body_without_a_request_bodys_fields_is_not_judged():
    data = timed({"source": {}, "request": {"n": 2}})
    view = request_view(read_capture(data).streams[0])
    assert view is not None and view.note is not None
    assert request_params(view) is None


# ------------------------------------------------------------------ the wire
def test_the_wire_carries_the_view_in_its_shape():
    """``capture``'s ``StreamInfo.request`` is the view (docs/protocol.md, ``RequestInfo``)."""
    demo = ROOT / "app" / "demos" / "tool-calls-parallel.timed.jsonl"
    stream = read_capture(demo.read_bytes()).streams[0]
    info = stream_info(stream)
    assert info["request"] == request_view(stream).to_json()
    assert [f.name for f in msgspec.structs.fields(protocol.RequestInfo)] == list(info["request"])
    msgspec.convert(info, protocol.StreamInfo)
    bare = read_capture(corpus("openai-gpt4o-tool-single.sse")).streams[0]
    assert stream_info(bare)["request"] is None


def test_a_har_entrys_unreadable_url_is_not_known():
    view = request_view(read_capture(har({"model": "m"}, url="http://[")).streams[0])
    assert view is not None and view.url is None and view.method == "POST"


def test_gemini_keeps_the_clients_own_json_as_sent():
    schema = {"type": "object", "properties": {"city_name": {"type": "string"}}}
    body = {
        "tools": [{"function_declarations": [{"name": "f", "parameters_json_schema": schema}]}],
        "contents": [
            {
                "role": "model",
                "parts": [{"function_call": {"name": "f", "args": {"city_name": "x"}}}],
            },
            {
                "role": "user",
                "parts": [{"function_response": {"name": "f", "response": {"a_b": 1}}}],
            },
        ],
    }
    view = read_request(body, "gemini")
    assert view.tools[0].schema == schema
    assert parts(view)[0][5] == '{\n  "city_name": "x"\n}'
    assert parts(view)[1][2] == '{\n  "a_b": 1\n}'
