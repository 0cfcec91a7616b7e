"""Legacy completions: Streamscope's final ``text_completion`` against what the openai SDK's
chunks concatenate to (``client.completions.create(stream=True)`` fed the same bytes through an
httpx MockTransport; the SDK has no accumulator of its own), for every real capture and for a
hand-made one with old-shape logprobs and two choices (the real ones have neither); the old
logprobs shape as chat entries on the timeline and rebuilt exactly; bad input."""

from __future__ import annotations

import json

import httpx2
import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.summary import summarize

from .common import DIALECT_CAPTURES, captures, expected, summary

NAMES = captures("completion-")
CHOICE_KEYS = {"index", "text", "logprobs", "finish_reason"}


def sdk_completion(data: bytes) -> dict:
    import openai  # by the tests that run it, not at collection

    """The SDK's chunks concatenated per choice: text, old-shape logprobs lists, the last
    non-null finish reason, provider fields as last sent, and the last usage."""

    def reply(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    final: dict = {"usage": None}
    choices: dict[int, dict] = {}
    with httpx2.Client(transport=httpx2.MockTransport(reply)) as http:
        client = openai.OpenAI(api_key="test", base_url="http://127.0.0.1:9/v1", http_client=http)
        for chunk in client.completions.create(model="m", prompt="p", stream=True):
            sent = chunk.to_dict(mode="json")
            final.update({k: sent[k] for k in ("id", "object", "created", "model")})
            final["usage"] = sent.get("usage") or final["usage"]
            for choice in sent["choices"]:
                acc = choices.setdefault(
                    choice["index"],
                    {"index": choice["index"], "text": "", "logprobs": None, "finish_reason": None},
                )
                acc["text"] += choice.get("text") or ""
                if choice.get("logprobs"):
                    old = acc["logprobs"] or {}
                    acc["logprobs"] = {k: old.get(k, []) + v for k, v in choice["logprobs"].items()}
                if choice.get("finish_reason") is not None:
                    acc["finish_reason"] = choice["finish_reason"]
                acc.update({k: v for k, v in choice.items() if k not in CHOICE_KEYS})
    final["choices"] = [choices[i] for i in sorted(choices)]
    return final


def read(data: bytes):
    return read_capture(data).streams[0]


def inspect(data: bytes) -> dict:
    return plain(summarize(read(data)))


def kinds(stream, kind: str) -> list:
    return [e for e in stream.events if e.kind == kind]


def sse(*chunks: dict) -> bytes:
    return (
        b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
    )


def chunk(*choices: dict, **fields) -> dict:
    return {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 7,
        "model": "gpt-3.5-turbo-instruct",
        "choices": list(choices),
        **fields,
    }


def choice(index: int, text: str, logprobs: dict | None = None, finish: str | None = None) -> dict:
    return {"text": text, "index": index, "logprobs": logprobs, "finish_reason": finish}


def old(tokens, logprobs, tops, offsets) -> dict:
    return {
        "tokens": tokens,
        "token_logprobs": logprobs,
        "top_logprobs": tops,
        "text_offset": offsets,
    }


# Two choices interleaved, old-shape logprobs with a character split over two tokens (OpenAI
# writes such tokens as "bytes:\\x.."), Azure's trailing empty chunk repeating the finish reason,
# and a usage chunk. Hand-made: no real capture has logprobs or n > 1.
HAND_MADE = sse(
    chunk(
        choice(0, "It", old(["It"], [-0.01], [{"It": -0.01, "This": -4.6}], [0])),
        choice(1, "Yes", old(["Yes"], [-0.5], [{"Yes": -0.5, "No": -0.9}], [0])),
    ),
    chunk(
        choice(
            0,
            " is\u2019",
            old(
                [" is", "bytes:\\xe2\\x80", "bytes:\\x99"],
                [-0.2, -1.5, -0.0001],
                [
                    {" is": -0.2},
                    {"bytes:\\xe2\\x80": -1.5, "\\u00a0": -3.0},
                    {"bytes:\\x99": -0.0001},
                ],
                [2, 5, 5],
            ),
        )
    ),
    chunk(choice(1, ".", old(["."], [-0.3], [{".": -0.3}], [3]), finish="length")),
    chunk(choice(0, "", None, finish="stop")),
    chunk(choice(0, "", None, finish="stop")),  # Azure repeats it
    chunk(usage={"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11}),
)


# ---------------------------------------------------------------------- the real captures
def test_there_are_four_real_completion_captures():
    assert len(NAMES) == 4


@pytest.mark.parametrize("name", NAMES)
def test_the_completion_is_what_the_sdk_chunks_concatenate_to(name):
    data = (DIALECT_CAPTURES / name).read_bytes()
    assert summary(name)["completion"] == sdk_completion(data)


@pytest.mark.parametrize("name", NAMES)
def test_completion_chunks_are_read_as_completions_not_as_unknown_payloads(name):
    stream = read((DIALECT_CAPTURES / name).read_bytes())
    assert stream.dialect_name == "completions"
    assert kinds(stream, "payload") == []
    assert stream.diagnostics == []
    assert "".join(e.text for e in kinds(stream, "text")) == expected(name)["final_text"]


def test_vllm_stop_reason_is_a_choice_extra():
    stream = read((DIALECT_CAPTURES / "completion-vllm-opt-125m-stop-reason.sse").read_bytes())
    extras = kinds(stream, "extra")
    assert [(e.scope, e.choice, e.fields) for e in extras] == [("choice", 0, {"stop_reason": None})]


# ---------------------------------------------------------------------- old-shape logprobs, n > 1
def test_old_shape_logprobs_round_trip_and_match_the_sdk():
    ours = inspect(HAND_MADE)["completion"]
    assert ours == sdk_completion(HAND_MADE)
    assert ours["choices"][0]["logprobs"] == old(
        ["It", " is", "bytes:\\xe2\\x80", "bytes:\\x99"],
        [-0.01, -0.2, -1.5, -0.0001],
        [
            {"It": -0.01, "This": -4.6},
            {" is": -0.2},
            {"bytes:\\xe2\\x80": -1.5, "\\u00a0": -3.0},
            {"bytes:\\x99": -0.0001},
        ],
        [0, 2, 5, 5],
    )


def test_old_shape_logprobs_are_chat_entries_on_the_timeline():
    stream = read(HAND_MADE)
    events = stream.events
    logprobs = [e for e in kinds(stream, "logprobs") if e.choice == 0]
    for event in logprobs:
        before = events[event.seq - 1]  # the popover pairs logprobs with the text before them
        assert (before.kind, before.raw, before.choice) == ("text", event.raw, event.choice)
    entries = [entry for e in logprobs for entry in e.entry_list()]
    assert entries[0] == {
        "token": "It",
        "logprob": -0.01,
        "bytes": [73, 116],
        "top_logprobs": [{"token": "It", "logprob": -0.01}, {"token": "This", "logprob": -4.6}],
        "text_offset": 0,
    }
    assert [e["bytes"] for e in entries[1:]] == [[32, 105, 115], [0xE2, 0x80], [0x99]]
    assert bytes(b for e in entries for b in e["bytes"]).decode() == "It is\u2019"


def test_two_choices_each_with_its_text_finish_and_usage():
    stream = read(HAND_MADE)
    assert [(f.choice, f.reason) for f in kinds(stream, "finish")] == [(1, "length"), (0, "stop")]
    normalized = inspect(HAND_MADE)["normalized"]
    assert [(o["index"], o["text"], o["stop_reason"]) for o in normalized["outputs"]] == [
        (0, "It is\u2019", "stop"),
        (1, "Yes.", "length"),
    ]
    assert normalized["usage"] == {"input_tokens": 5, "output_tokens": 6}
    assert stream.diagnostics == []


def test_chat_shaped_logprobs_in_a_completion_chunk_stay_chat_shaped():
    entry = {"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}
    data = sse(chunk(choice(0, "Hi", {"content": [entry]}, finish="stop")))
    (event,) = kinds(read(data), "logprobs")
    assert event.entry_list() == [entry]
    assert inspect(data)["completion"]["choices"][0]["logprobs"] == {"content": [entry]}


# ---------------------------------------------------------------------- detection
def test_a_completion_chunk_without_object_is_still_a_completion():
    data = sse(
        {"id": "c", "model": "m", "choices": [{"index": 0, "text": "Hi", "finish_reason": "stop"}]}
    )
    stream = read(data)
    assert stream.dialect_name == "completions"
    assert stream.dialect_reason == "choices with text and no delta, line 1"


def test_a_chat_chunk_that_mirrors_text_next_to_its_delta_stays_chat():
    chat = {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "Hi"}, "text": "Hi"}],
    }
    assert read(sse(chat)).dialect_name == "chat-completions"


def test_a_chat_chunk_inside_a_completions_stream_is_a_mixed_dialect():
    chat = {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "x"}}],
    }
    stream = read(sse(chunk(choice(0, "a")), chat))
    assert stream.dialect_name == "completions"
    assert "mixed_dialects" in {d.code for d in stream.diagnostics}
    assert "".join(e.text for e in kinds(stream, "text")) == "a"


# ---------------------------------------------------------------------- bad input
def test_bad_shapes_are_said_and_what_came_before_is_kept():
    data = sse(
        chunk(choice(0, "Hel")),
        chunk(choice(0, "lo", old(["lo", "x"], [-0.1], None, [3]))),
        chunk({"index": -1, "text": "?"}, {"index": 0, "text": 5}),
        chunk("not a choice"),
        {"error": {"message": "overloaded", "code": 503}},
    )
    stream = read(data)
    assert [d.code for d in stream.diagnostics] == [
        "logprobs_shape",
        "choice_index_invalid",
        "text_not_string",
        "choice_not_object",
    ]
    assert "token_logprobs has 1 items for 2 tokens" in stream.diagnostics[0].message
    assert [(e.message, e.code) for e in kinds(stream, "error")] == [("overloaded", 503)]
    assert inspect(data)["completion"]["choices"][0]["text"] == "Hello"
    rebuilt = inspect(data)["completion"]["choices"][0]["logprobs"]
    assert rebuilt == old(["lo", "x"], [-0.1, None], None, [3, None])
