"""The assembly rules of docs/assembly.md, one test per rule or provider quirk."""

from __future__ import annotations

import json

from app.captures import read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import corpus


def sse(*chunks, done: bool = True) -> bytes:
    body = b"".join(
        b"data: " + (c if isinstance(c, bytes) else json.dumps(c).encode()) + b"\n\n"
        for c in chunks
    )
    return body + (b"data: [DONE]\n\n" if done else b"")


def read(data: bytes):
    capture = read_capture(data)
    assert len(capture.streams) == 1
    return capture.streams[0]


def result(data: bytes) -> dict:
    return plain(assemble(read(data).events))


def chunk(*choices, **extra) -> dict:
    return {
        "id": "x",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": list(choices),
        **extra,
    }


def delta(index=0, finish=None, logprobs=None, **fields) -> dict:
    out = {"index": index, "delta": fields, "finish_reason": finish}
    if logprobs is not None:
        out["logprobs"] = logprobs
    return out


def codes(data: bytes) -> list[str]:
    return [d.code for d in read(data).diagnostics]


# Rule 1: choices by index, with gaps and in any order.
def test_choices_placed_by_index_with_gaps_and_any_order():
    out = result(
        sse(
            chunk(delta(2, content="two")),
            chunk(delta(0, content="zero")),
            chunk(delta(2, content="!", finish="stop")),
            chunk(delta(0, finish="length")),
        )
    )
    assert [c["index"] for c in out["choices"]] == [0, 2]
    assert out["choices"][1]["message"]["content"] == "two!"
    assert [c["finish_reason"] for c in out["choices"]] == ["length", "stop"]


# Rule 2: text concatenated, identity never.
def test_identity_fields_are_not_concatenated():
    out = result(
        sse(
            chunk(delta(role="assistant", content="a")),
            chunk(delta(role="assistant", content="b", reasoning_content="r1")),
            chunk(delta(role="assistant", reasoning_content="r2", refusal="no")),
        )
    )
    message = out["choices"][0]["message"]
    assert message["role"] == "assistant"
    assert message["content"] == "ab"
    assert message["reasoning_content"] == "r1r2"
    assert message["refusal"] == "no"
    assert out["id"] == "x"


def tool_fragment(arguments: str, first: bool = False) -> dict:
    fragment: dict = {"index": 0, "function": {"arguments": arguments}}
    if first:
        fragment.update(id="call_1", type="function")
        fragment["function"]["name"] = "f"
    return fragment


def test_content_sent_only_as_empty_stays_empty_and_never_sent_stays_null():
    calls = [
        chunk(delta(tool_calls=[tool_fragment('{"a":', first=True)])),
        chunk(delta(tool_calls=[tool_fragment("1}")], finish="tool_calls")),
    ]
    empty_first = result(sse(chunk(delta(role="assistant", content="")), *calls))
    assert empty_first["choices"][0]["message"]["content"] == ""
    assert empty_first["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == (
        '{"a":1}'
    )
    null_first = result(sse(chunk(delta(role="assistant", content=None)), *calls))
    assert null_first["choices"][0]["message"]["content"] is None
    assert result(sse(*calls))["choices"][0]["message"]["content"] is None
    then_text = result(sse(chunk(delta(content="")), chunk(delta(content="hi", finish="stop"))))
    assert then_text["choices"][0]["message"]["content"] == "hi"


def test_refusal_sent_only_as_empty_stays_empty_even_without_a_finish_reason():
    out = result(sse(chunk(delta(content="4", refusal="")), done=False))
    assert out["choices"][0]["message"]["refusal"] == ""
    assert out["choices"][0]["message"]["content"] == "4"


def test_an_empty_field_is_one_empty_event_when_its_choice_ends():
    stream = read(
        sse(
            chunk(delta(role="assistant", content="")),
            chunk(delta(content="")),
            chunk(delta(tool_calls=[tool_fragment("{}", first=True)], finish="tool_calls")),
        )
    )
    texts = [(e.text, e.raw) for e in stream.events if e.kind == "text"]
    assert texts == [("", 2)]  # at the finish chunk, once; not where "" was first sent
    kinds = [e.kind for e in stream.events if e.raw == 2]
    assert kinds.index("text") < kinds.index("tool_end") < kinds.index("finish")
    assert not stream.raw[0].output and not stream.raw[1].output


def test_tgi_token_id_is_not_summed():
    out = result(corpus("hf-router-tgi-token-id-reasoning.sse"))
    token_id = out["choices"][0]["message"]["token_id"]
    assert isinstance(token_id, int) and token_id < 200_000  # the last one, not a sum


# Rule 3: tool calls.
def call(index=None, id=None, name=None, arguments=None, type=None) -> dict:
    fragment = {"function": {}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    if type is not None:
        fragment["type"] = type
    if name is not None:
        fragment["function"]["name"] = name
    if arguments is not None or name is None:
        fragment["function"]["arguments"] = arguments
    return fragment


def calls(out: dict, choice: int = 0) -> list[tuple]:
    return [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in out["choices"][choice]["message"]["tool_calls"] or []
    ]


def test_tool_calls_merge_by_index_even_when_interleaved():
    out = result(
        sse(
            chunk(delta(tool_calls=[call(0, "a", "f", ""), call(1, "b", "g", "")])),
            chunk(delta(tool_calls=[call(1, arguments='{"y"'), call(0, arguments='{"x"')])),
            chunk(
                delta(
                    tool_calls=[call(0, arguments=":1}"), call(1, arguments=":2}")],
                    finish="tool_calls",
                )
            ),
        )
    )
    assert calls(out) == [("a", "f", '{"x":1}'), ("b", "g", '{"y":2}')]


def test_tool_calls_without_index_start_on_name_or_new_id():
    out = result(corpus("mistral-small-tool-call-no-index.sse"))
    assert len(calls(out)) == 1
    data = sse(
        chunk(delta(tool_calls=[call(id="a", name="f", arguments='{"q":')])),
        chunk(delta(tool_calls=[call(arguments='"1"}')])),
        chunk(delta(tool_calls=[call(id="b", name="g", arguments="{}")])),
        chunk(delta(tool_calls=[call(name="h", arguments="{}")])),
    )
    assert calls(result(data)) == [("a", "f", '{"q":"1"}'), ("b", "g", "{}"), (None, "h", "{}")]


def test_tool_index_starting_at_one_and_huge_index():
    out = result(corpus("anthropic-compat-tool-index-starts-at-1.sse"))
    assert len(calls(out)) == 1
    big = result(sse(chunk(delta(tool_calls=[call(10**9, "a", "f", "{}")]))))
    assert calls(big) == [("a", "f", "{}")]


def test_arguments_null_counts_as_absent():
    out = result(corpus("openrouter-tool-arguments-null.sse"))
    assert calls(out) == [("0", "llm_version", "")]
    ends = [
        e for e in read(corpus("openrouter-tool-arguments-null.sse")).events if e.kind == "tool_end"
    ]
    assert ends[0].status == "empty"


def test_duplicated_whole_calls_are_both_shown():
    out = result(corpus("cerebras-zai-glm-reasoning-tool-call.sse"))
    shown = calls(out)
    assert len(shown) == 2
    assert shown[0][1] == shown[1][1] == "nonUsefulTool"
    assert shown[0][0] != shown[1][0]


def test_repeated_id_and_name_continue_the_same_call():
    out = result(corpus("openrouter-novita-kimi-tool-repeated-id-name.sse"))
    assert len(calls(out)) == 1
    assert calls(out)[0][2] == "{}"


def test_broken_arguments_are_shown_with_where_they_break():
    stream = read(
        sse(chunk(delta(tool_calls=[call(0, "a", "f", '{"x": 1,, "y": 2}')], finish="tool_calls")))
    )
    (end,) = [e for e in stream.events if e.kind == "tool_end"]
    assert end.status == "invalid"
    assert end.incomplete is False
    assert end.error_pos == 8
    assert "char 8" in end.error


def test_arguments_parse_only_when_the_call_ends():
    stream = read(
        sse(
            chunk(delta(tool_calls=[call(0, "a", "f", '{"x"')])),
            chunk(delta(tool_calls=[call(0, arguments=": 1}")])),
            chunk(delta(finish="tool_calls")),
        )
    )
    kinds = [e.kind for e in stream.events]
    assert kinds.index("tool_end") > max(i for i, k in enumerate(kinds) if k == "tool_args")
    assert kinds.index("tool_end") < kinds.index("finish")


# Rule 4: Mistral content parts.
def test_mistral_content_parts_are_kept_as_parts():
    out = result(corpus("mistral-magistral-content-parts-thinking.sse"))
    content = out["choices"][0]["message"]["content"]
    assert content == [
        {
            "type": "thinking",
            "thinking": [
                {
                    "type": "text",
                    "text": "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
                }
            ],
        },
        {"type": "text", "text": "2 + 2 = 4"},
    ]


# Rule 5: logprobs.
def lp(*tokens) -> dict:
    return {
        "content": [
            {
                "token": t,
                "logprob": -0.5,
                "bytes": list(t.encode()),
                "top_logprobs": [
                    {"token": t, "logprob": -0.5, "bytes": list(t.encode())},
                    {"token": "z", "logprob": -2.0, "bytes": [122]},
                ],
            }
            for t in tokens
        ],
        "refusal": None,
    }


def test_logprobs_extend_with_several_tokens_per_chunk_and_keep_top_logprobs():
    out = result(
        sse(
            chunk(delta(content="Hello", logprobs=lp("Hel", "lo"))),
            chunk(delta(content=" you", logprobs=lp(" you"))),
        )
    )
    entries = out["choices"][0]["logprobs"]["content"]
    assert [e["token"] for e in entries] == ["Hel", "lo", " you"]
    assert entries[1]["top_logprobs"][1] == {"token": "z", "logprob": -2.0, "bytes": [122]}
    assert out["choices"][0]["logprobs"]["refusal"] is None


def test_refusal_logprobs_extend_refusal_list():
    out = result(corpus("openai-gpt4o-refusal-logprobs.sse"))
    logprobs = out["choices"][0]["logprobs"]
    assert logprobs["content"] is None
    assert (
        "".join(e["token"] for e in logprobs["refusal"]) == out["choices"][0]["message"]["refusal"]
    )


def test_split_utf8_bytes_are_kept_per_token():
    split = {
        "content": [
            {"token": "bytes:\\xf0\\x9f", "logprob": -0.1, "bytes": [240, 159], "top_logprobs": []},
            {"token": "bytes:\\x98\\x80", "logprob": -0.1, "bytes": [152, 128], "top_logprobs": []},
        ]
    }
    out = result(sse(chunk(delta(content="\U0001f600", logprobs=split))))
    entries = out["choices"][0]["logprobs"]["content"]
    assert bytes(entries[0]["bytes"] + entries[1]["bytes"]).decode() == "\U0001f600"
    assert out["choices"][0]["message"]["content"] == "\U0001f600"


# Rule 6: finish reason.
def test_finish_reason_last_non_null_and_none_when_none_came():
    assert (
        result(corpus("snowflake-cortex-no-finish-reason.sse"))["choices"][0]["finish_reason"]
        == "none"
    )
    out = result(corpus("openrouter-minimax-error-midstream.sse"))
    assert out["choices"][0]["finish_reason"] == "length"


# Rule 7: usage.
def test_usage_last_non_null_survives_later_chunks_without_it():
    out = result(corpus("openai-gpt4o-moderation-after-usage.sse"))
    assert out["usage"]["total_tokens"] == 24


def test_provider_usage_extras_are_kept_as_sent():
    xai = result(corpus("xai-grok3mini-reasoning-tool-call.sse"))["usage"]
    assert xai["total_tokens"] != xai["prompt_tokens"] + xai["completion_tokens"]
    groq = result(corpus("groq-llama33-tool-call-x-groq.sse"))
    assert "usage" in groq["x_groq"] and groq["x_groq"]["id"]
    perplexity = result(corpus("perplexity-sonar-citations.sse"))
    assert perplexity["usage"]["completion_tokens"] == 336
    assert perplexity["citations"]
    vllm = result(corpus("vllm-crusoe-llama33-text.sse"))
    assert vllm["choices"][0]["stop_reason"] is None or "stop_reason" in vllm["choices"][0]


def test_usage_only_in_x_groq_is_used():
    data = sse(
        chunk(
            delta(content="a", finish="stop"),
            x_groq={"usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
        )
    )
    assert result(data)["usage"]["total_tokens"] == 2


# Rule 8: non-chunk payloads are classified.
def payloads(data: bytes) -> list[str]:
    return [e.category for e in read(data).events if e.kind == "payload"]


def test_non_chunk_payloads_are_classified():
    assert payloads(corpus("anthropic-compat-ping-data-event.sse")) == ["ping"]
    assert payloads(corpus("azure-gpt5nano-model-router-content-filter.sse")) == [
        "prompt_filter_results"
    ]
    assert payloads(corpus("perplexity-sonar-citations.sse")) == ["completion_done"]
    assert payloads(corpus("openai-gpt4o-moderation-after-usage.sse")) == ["moderation"]
    # A chat stream that then carries another dialect's events: kept, classified, and said.
    native = corpus("anthropic-native-messages-ping.sse")
    stream = read(corpus("openai-gpt4o-content-plain.sse").replace(b"data: [DONE]", b"") + native)
    assert stream.dialect_name == "chat-completions"
    assert {e.category for e in stream.events if e.kind == "payload"} == {"foreign_event", "ping"}
    assert "mixed_dialects" in {d.code for d in stream.diagnostics}


def test_perplexity_done_chunk_carries_the_finish_reason():
    assert result(corpus("perplexity-sonar-citations.sse"))["choices"][0]["finish_reason"] == "stop"


def test_azure_model_router_change_is_a_meta_event():
    stream = read(corpus("azure-gpt5nano-model-router-content-filter.sse"))
    models = [e.fields["model"] for e in stream.events if e.kind == "meta" and "model" in e.fields]
    assert len(models) >= 1


def test_whole_completion_object_is_read():
    whole = {
        "id": "w",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "hi",
                    "tool_calls": [
                        {
                            "id": "t",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    out = result(json.dumps(whole).encode())
    assert out["choices"][0]["message"]["content"] == "hi"
    assert calls(out) == [("t", "f", "{}")]
    assert payloads(json.dumps(whole).encode()) == ["completion"]


# Rule 9: errors inside the stream.
def test_error_next_to_choices_keeps_everything_before():
    stream = read(corpus("openrouter-minimax-error-midstream.sse"))
    errors = [e for e in stream.events if e.kind == "error"]
    assert errors[0].message == "Token limit reached"
    assert errors[0].code == 400
    assert plain(assemble(stream.events))["usage"]["total_tokens"] == 53


def test_event_error_without_done():
    stream = read(corpus("groq-gptoss-event-error-midstream.sse"))
    errors = [e for e in stream.events if e.kind == "error"]
    assert errors[0].code == "tool_use_failed"
    assert errors[0].event == "error"
    assert "missing_done" not in [d.code for d in stream.diagnostics]
    reasoning = plain(assemble(stream.events))["choices"][0]["message"]["reasoning"]
    assert reasoning.endswith(" Let's do that.")


# Provider extras.
def test_provider_extras_are_kept_under_their_own_names():
    out = result(corpus("openrouter-claude-reasoning-keepalive.sse"))
    message = out["choices"][0]["message"]
    assert message["reasoning"]
    assert isinstance(message["reasoning_details"], list)
    assert out["provider"] == "Google"
    comments = [
        e
        for e in read(corpus("openrouter-claude-reasoning-keepalive.sse")).events
        if e.kind == "comment"
    ]
    assert comments and comments[0].text == "OPENROUTER PROCESSING"
