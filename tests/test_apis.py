"""The API records live mode and ``streamscope record`` speak (app/live/apis.py): where each
request goes, which header carries the key (never the URL), and how the common request becomes
each API's body (app/live/apibodies.py)."""

from __future__ import annotations

import pytest

from app.live.apis import APIS, api_named
from app.live.request import RunRequest
from app.live.service import RunConfigError

KEY = "sk-unit-canary-0123456789abcdef"

COMMON = {
    "model": "m-1",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Weather "},
                {"type": "text", "text": "in Paris?"},
            ],
        },
        {"role": "assistant", "content": "Which units?"},
        {"role": "user", "content": "Celsius."},
    ],
    "temperature": 0.5,
    "top_p": 0.9,
    "max_tokens": 50,
    "stop": "END",
    "seed": 7,
    "logprobs": True,
    "top_logprobs": 2,
    "stream_options": {"include_usage": True},
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ],
    "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    "response_format": {"type": "json_object"},
    "metadata": {"run": "1"},  # an extra field: copied as it is
}
PARAMETERS = COMMON["tools"][0]["function"]["parameters"]


@pytest.mark.parametrize(
    ("name", "base_url", "url"),
    [
        ("chat", "https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"),
        ("responses", "https://api.openai.com/v1", "https://api.openai.com/v1/responses"),
        ("completions", "http://localhost:8000/v1", "http://localhost:8000/v1/completions"),
        ("anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1/messages"),
        (
            "gemini",
            "https://generativelanguage.googleapis.com",
            "https://generativelanguage.googleapis.com/v1beta/models/m-1:streamGenerateContent?alt=sse",
        ),
        ("ollama", "http://localhost:11434/", "http://localhost:11434/api/chat"),
        ("ollama-generate", "http://localhost:11434", "http://localhost:11434/api/generate"),
        (
            "chat",
            "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
            "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
        ),
    ],
)
def test_each_api_posts_to_its_own_path_under_the_base_url(name, base_url, url):
    api = APIS[name]
    assert api.url(base_url, "m-1") == url


@pytest.mark.parametrize(
    ("name", "headers"),
    [
        ("chat", {"Authorization": f"Bearer {KEY}"}),
        ("responses", {"Authorization": f"Bearer {KEY}"}),
        ("completions", {"Authorization": f"Bearer {KEY}"}),
        ("anthropic", {"x-api-key": KEY, "anthropic-version": "2023-06-01"}),
        ("gemini", {"x-goog-api-key": KEY}),
        ("ollama", {"Authorization": f"Bearer {KEY}"}),
    ],
)
def test_the_key_goes_in_its_api_header_and_never_in_the_url(name, headers):
    request = RunRequest(
        base_url="http://127.0.0.1:9",
        body=APIS[name].body(COMMON),
        api_key=KEY,
        api=APIS[name],
        model="m-1",
    )
    sent = request.sent_headers()
    assert {k: v for k, v in sent.items() if k != "Accept"} == headers
    assert KEY not in request.url
    assert request.secrets() == [KEY]  # anthropic-version is not a secret to redact
    keyless = RunRequest(base_url="http://127.0.0.1:9", body={}, api=APIS[name], model="m")
    assert not any(KEY in v for v in keyless.sent_headers().values())
    assert set(keyless.sent_headers()) == {"Accept", *(k for k, _ in APIS[name].headers)}


def test_ollama_asks_for_ndjson_and_the_others_for_an_event_stream():
    assert {name: api.accept for name, api in APIS.items()} == {
        "chat": "text/event-stream",
        "responses": "text/event-stream",
        "completions": "text/event-stream",
        "anthropic": "text/event-stream",
        "gemini": "text/event-stream",
        "ollama": "application/x-ndjson",
        "ollama-generate": "application/x-ndjson",
    }


def test_user_headers_may_set_the_api_version_but_the_key_header_is_the_apis():
    request = RunRequest(
        base_url="https://api.anthropic.com",
        body={},
        api_key=KEY,
        headers={"anthropic-version": "2024-01-01", "anthropic-beta": "x"},
        api=APIS["anthropic"],
    )
    sent = request.sent_headers()
    assert sent["anthropic-version"] == "2024-01-01" and sent["x-api-key"] == KEY


@pytest.mark.parametrize("model", ["../secret", "a/b", "", ".x", "m?alt=json", "m#x", "m%2f"])
def test_a_gemini_model_that_could_change_the_path_is_refused(model):
    with pytest.raises(ValueError, match="cannot go in the URL"):
        APIS["gemini"].url("https://generativelanguage.googleapis.com", model)
    assert APIS["gemini"].url("https://g.test", "models/gemini-2.5-flash") == (
        "https://g.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )


# ---------------------------------------------------------------------- bodies
def test_chat_sends_the_common_form_as_it_is():
    assert APIS["chat"].body(COMMON) == {**COMMON, "stream": True}


def test_completions_body():
    assert APIS["completions"].body(COMMON) == {
        "model": "m-1",
        "prompt": "Be brief.\n\nWeather in Paris?\n\nWhich units?\n\nCelsius.",
        "max_tokens": 50,
        "temperature": 0.5,
        "top_p": 0.9,
        "stop": "END",
        "seed": 7,
        "stream_options": {"include_usage": True},
        "logprobs": 2,
        "metadata": {"run": "1"},
        "stream": True,
    }


def test_responses_body():
    assert APIS["responses"].body(COMMON) == {
        "model": "m-1",
        "input": [{"role": m["role"], "content": m["content"]} for m in COMMON["messages"]],
        "temperature": 0.5,
        "top_p": 0.9,
        "max_output_tokens": 50,
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Weather",
                "parameters": PARAMETERS,
            }
        ],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "text": {"format": {"type": "json_object"}},
        "include": ["message.output_text.logprobs"],
        "top_logprobs": 2,
        "metadata": {"run": "1"},
        "stream": True,
    }


def test_anthropic_body():
    assert APIS["anthropic"].body(COMMON) == {
        "model": "m-1",
        "max_tokens": 50,
        "messages": [{"role": m["role"], "content": m["content"]} for m in COMMON["messages"][1:]],
        "system": "Be brief.",
        "temperature": 0.5,
        "top_p": 0.9,
        "stop_sequences": ["END"],
        "tools": [{"name": "get_weather", "input_schema": PARAMETERS, "description": "Weather"}],
        "tool_choice": {"type": "tool", "name": "get_weather"},
        "metadata": {"run": "1"},
        "stream": True,
    }
    plain = APIS["anthropic"].body({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert plain == {
        "model": "m",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
    }
    assert APIS["anthropic"].body({**plain, "tool_choice": "required"})["tool_choice"] == {
        "type": "any"
    }


def test_gemini_body():
    assert APIS["gemini"].body(COMMON) == {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {"role": "model", "parts": [{"text": "Which units?"}]},
            {"role": "user", "parts": [{"text": "Celsius."}]},
        ],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {
            "temperature": 0.5,
            "topP": 0.9,
            "maxOutputTokens": 50,
            "stopSequences": ["END"],
            "seed": 7,
            "responseLogprobs": True,
            "logprobs": 2,
            "responseMimeType": "application/json",
        },
        "tools": [{"functionDeclarations": [COMMON["tools"][0]["function"]]}],
        "toolConfig": {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
        },
        "metadata": {"run": "1"},
    }


def test_an_extra_object_merges_into_the_one_the_translation_wrote():
    common = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.2,
        "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
    }
    assert APIS["gemini"].body(common)["generationConfig"] == {
        "temperature": 0.2,
        "thinkingConfig": {"includeThoughts": True},
    }


def test_ollama_bodies():
    assert APIS["ollama"].body(COMMON) == {
        "model": "m-1",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "Which units?"},
            {"role": "user", "content": "Celsius."},
        ],
        "tools": COMMON["tools"],
        "options": {
            "temperature": 0.5,
            "top_p": 0.9,
            "num_predict": 50,
            "seed": 7,
            "stop": ["END"],
        },
        "format": "json",
        "logprobs": True,
        "top_logprobs": 2,
        "metadata": {"run": "1"},
        "stream": True,
    }
    generate = APIS["ollama-generate"].body({"model": "m", "messages": COMMON["messages"]})
    assert generate == {
        "model": "m",
        "prompt": "Weather in Paris?\n\nWhich units?\n\nCelsius.",
        "system": "Be brief.",
        "stream": True,
    }


@pytest.mark.parametrize("name", list(APIS))
def test_an_extra_stream_false_cannot_turn_streaming_off(name):
    body = APIS[name].body({"model": "m", "messages": [], "stream": False})
    assert body.get("stream", True) is True


# ---------------------------------------------------------------------- models lists
@pytest.mark.parametrize(
    ("name", "answer", "names"),
    [
        ("chat", {"object": "list", "data": [{"id": "b"}, {"id": "a"}]}, ["a", "b"]),
        (
            "anthropic",
            {"data": [{"id": "claude-x", "type": "model"}], "has_more": False},
            ["claude-x"],
        ),
        ("gemini", {"models": [{"name": "models/gemini-2.5-flash"}]}, ["gemini-2.5-flash"]),
        ("ollama", {"models": [{"name": "llama3:latest"}]}, ["llama3:latest"]),
        ("ollama", {"error": "x"}, []),
        ("chat", {"data": "nope"}, None),
        ("chat", [1, 2], None),
    ],
)
def test_each_api_reads_its_own_models_list(name, answer, names):
    assert APIS[name].model_names(answer) == names


def test_apis_are_named_and_an_unknown_one_says_which_exist():
    assert api_named(None).name == "chat" and api_named("").name == "chat"
    with pytest.raises(ValueError, match="unknown api 'bedrock'; known: chat, responses"):
        api_named("bedrock")


# ---------------------------------------------------------------------- the service
def service():
    from app.live.policy import Policy
    from app.live.request import Timeouts
    from app.live.service import LiveService
    from app.settings import load

    return LiveService(None, Policy(public=False), Timeouts(), load({}))  # type: ignore[arg-type]


def test_the_service_writes_the_apis_body_and_refuses_what_it_cannot_write():
    live = service()
    base = {
        "base_url": "http://127.0.0.1:9",
        "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    }
    request = live.request({**base, "api": "anthropic", "api_key": KEY})
    assert request.api.name == "anthropic" and request.body["max_tokens"] == 1024
    assert request.url == "http://127.0.0.1:9/v1/messages" and request.model == "m"
    assert live.request(base).api.name == "chat"
    with pytest.raises(RunConfigError, match="unknown api 'nope'"):
        live.request({**base, "api": "nope"})
    with pytest.raises(RunConfigError, match="cannot go in the URL"):
        live.request({**base, "api": "gemini", "body": {"model": "../x", "messages": []}})
    with pytest.raises(RunConfigError, match="cannot be written for the Anthropic Messages API: "):
        live.request(
            {**base, "api": "anthropic", "body": {"model": "m", "messages": [], "stop": 5}}
        )
