"""For every rule of the catalogue: a stream that triggers it, and a near miss that does not.

A near miss is the same stream with only the quirk taken out (or a legal neighbour of it), so
a rule that fires on anything close fails its near miss. tests/rules/test_cases.py runs them
all and checks that every registered rule has its case.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.rules.kit import chunk, sse, timed, usage


@dataclass(frozen=True)
class Case:
    trigger: bytes
    near_miss: bytes
    fmt: str | None = None
    options: dict = field(default_factory=dict)


def call(index=0, id="call_1", name="f", args="") -> dict:
    fragment: dict = {"function": {"arguments": args}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
        fragment["type"] = "function"
    if name is not None:
        fragment["function"]["name"] = name
    return fragment


def tools(*fragments: dict, finish: str = "tool_calls") -> list[dict]:
    first = chunk({"role": "assistant", "tool_calls": [fragments[0]]})
    rest = [chunk({"tool_calls": [f]}) for f in fragments[1:]]
    return [first, *rest, chunk(finish=finish)]


def text(*parts: str, finish: str | None = "stop", role: object = "assistant") -> list[dict]:
    first = {"content": parts[0]} if role is None else {"role": role, "content": parts[0]}
    return [chunk(first), *(chunk({"content": p}) for p in parts[1:]), chunk(finish=finish)]


def usage_chunk(**kw) -> dict:
    return chunk(None, choices=[], usage=usage(**kw))


CONT = call(id=None, name=None, args='{"a":1}')
# One token whose logprob entry carries one alternative (top-logprobs-count's stream).
ONE_ALTERNATIVE = sse(
    dict(
        chunk(),
        choices=[
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "a"},
                "finish_reason": None,
                "logprobs": {
                    "content": [
                        {
                            "token": "a",
                            "logprob": -0.1,
                            "bytes": [97],
                            "top_logprobs": [{"token": "a", "logprob": -0.1, "bytes": [97]}],
                        }
                    ]
                },
            }
        ],
    ),
    chunk(finish="stop"),
)
CASES: dict[str, Case] = {
    "tool-call-index-missing": Case(
        sse(*tools(call(index=None), call(index=None, id=None, name=None, args="{}"))),
        sse(*tools(call(), call(id=None, name=None, args="{}"))),
    ),
    "tool-call-index-reused": Case(
        sse(*tools(call(args="{}"), call(id="call_2", name="g", args="{}"))),
        sse(*tools(call(args="{}"), call(index=1, id="call_2", name="g", args="{}"))),
    ),
    "tool-call-id-changed": Case(
        sse(*tools(call(), call(id="call_1", name=None, args="{}"))),
        sse(*tools(call(), call(id=None, name=None, args="{}"))),
    ),
    "tool-call-name-repeated": Case(
        sse(*tools(call(), call(id=None, name="f", args="{}"))),
        sse(*tools(call(), call(id=None, name=None, args="{}"))),
    ),
    "tool-call-name-empty": Case(
        sse(*tools(call(), call(id=None, name="", args="{}"))),
        sse(*tools(call(), call(id=None, name=None, args="{}"))),
    ),
    "tool-call-arguments-not-string": Case(
        sse(
            *tools(
                {
                    "index": 0,
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": {"a": 1}},
                }
            )
        ),
        sse(
            *tools(
                {
                    "index": 0,
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a": 1}'},
                }
            )
        ),
    ),
    "tool-call-finish-mismatch": Case(
        sse(*tools(call(), CONT, finish="stop")),
        sse(*tools(call(), CONT, finish="tool_calls")),
    ),
    "finish-reason-repeated": Case(
        sse(*text("a", "b"), chunk(finish="stop")),
        sse(*text("a", "b")),
    ),
    "finish-reason-empty": Case(
        sse(chunk({"role": "assistant", "content": "a"}, finish=""), chunk(finish="stop")),
        sse(chunk({"role": "assistant", "content": "a"}), chunk(finish="stop")),
    ),
    "finish-reason-missing": Case(
        sse(*text("a", "b", finish=None)),
        sse(*text("a", "b")),
    ),
    "done-missing": Case(
        sse(*text("a", "b"), done=False),
        sse(*text("a", "b")),
    ),
    "usage-every-chunk": Case(
        sse(*(dict(c, usage=usage(completion=i + 1)) for i, c in enumerate(text("a", "b")))),
        sse(*text("a", "b"), usage_chunk()),
    ),
    "usage-with-choices": Case(
        sse(*text("a", "b")[:-1], chunk(finish="stop", usage=usage())),
        sse(*text("a", "b"), usage_chunk()),
    ),
    "usage-choices-key-missing": Case(
        sse(
            *text("a"),
            {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "usage": usage()},
        ),
        sse(*text("a"), usage_chunk()),
    ),
    "usage-inconsistent": Case(
        sse(*text("a"), usage_chunk(prompt=3, completion=2, total=9)),
        sse(*text("a"), usage_chunk(prompt=3, completion=2, total=5)),
    ),
    "empty-choices-chunk": Case(
        sse(chunk(None, choices=[], prompt_filter_results=[]), *text("a")),
        sse(*text("a"), usage_chunk()),
    ),
    "role-repeated": Case(
        sse(
            *text("a", "b")[:1], chunk({"role": "assistant", "content": "b"}), chunk(finish="stop")
        ),
        sse(*text("a", "b")),
    ),
    "role-empty": Case(
        sse(*text("a", "b", role="")),
        sse(*text("a", "b")),
    ),
    "role-missing": Case(
        sse(*text("a", "b", role=None)),
        sse(*text("a", "b")),
    ),
    "chunk-id-changed": Case(
        sse(*text("a"), chunk({"content": "b"}, id="chatcmpl-2"), chunk(finish="stop")),
        sse(*text("a", "b")),
    ),
    "choice-index-unexpected": Case(
        sse(
            *(chunk({"role": "assistant", "content": c}, index=i) for i, c in enumerate("abcd")),
            chunk(finish="stop"),
        ),
        sse(
            *(
                chunk({"role": "assistant", "content": c}, index=i % 2)
                for i, c in enumerate("abcdefgh")
            ),
            chunk(finish="stop"),
            chunk(finish="stop", index=1),
        ),
    ),
    "reasoning-field": Case(
        sse(chunk({"role": "assistant", "reasoning_content": "think"}), *text("a")[1:]),
        sse(*text("a", "b")),
    ),
    "logprobs-shape": Case(
        sse(
            dict(
                chunk({"role": "assistant", "content": "a"}),
                choices=[
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": "a"},
                        "finish_reason": None,
                        "logprobs": {
                            "tokens": ["a"],
                            "token_logprobs": [-0.1],
                            "top_logprobs": None,
                        },
                    }
                ],
            ),
            chunk(finish="stop"),
        ),
        sse(
            dict(
                chunk({"role": "assistant", "content": "a"}),
                choices=[
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": "a"},
                        "finish_reason": None,
                        "logprobs": {
                            "content": [
                                {"token": "a", "logprob": -0.1, "bytes": [97], "top_logprobs": []}
                            ]
                        },
                    }
                ],
            ),
            chunk(finish="stop"),
        ),
    ),
    "error-in-stream": Case(
        sse(*text("a")[:1], {"error": {"message": "overloaded", "code": 500}}, done=False),
        sse(*text("a")),
    ),
    "keepalive-comment": Case(
        sse(*text("a"), comments=("OPENROUTER PROCESSING",)),
        sse(*text("a")),
    ),
    "meta-only-event": Case(
        b"retry: 3000\n\n" + sse(*text("a")),
        b"retry: 3000\n" + sse(*text("a")),
    ),
    "content-type-mismatch": Case(
        timed(sse(*text("a")), content_type="application/json"),
        timed(sse(*text("a")), content_type="text/event-stream; charset=utf-8"),
    ),
    "stream-truncated": Case(
        sse(*text("a", "b")[:-1], done=False),
        sse(*text("a", "b"), done=False),
    ),
    "stall": Case(
        timed(sse(*text("a", "b", "c")), times=[10.0, 20.0, 900.0, 910.0, 911.0]),
        timed(sse(*text("a", "b", "c")), times=[10.0, 20.0, 30.0, 40.0, 41.0]),
    ),
    "usage-missing": Case(
        timed(sse(*text("a")), request={"model": "m", "stream_options": {"include_usage": True}}),
        timed(
            sse(*text("a"), usage_chunk()),
            request={"model": "m", "stream_options": {"include_usage": True}},
        ),
    ),
    "usage-unrequested": Case(
        timed(sse(*text("a"), usage_chunk()), request={"model": "m", "messages": []}),
        timed(
            sse(*text("a"), usage_chunk()),
            request={"model": "m", "stream_options": {"include_usage": True}},
        ),
    ),
    "choices-count": Case(
        timed(sse(*text("a")), request={"model": "m", "n": 2}),
        timed(
            sse(
                *text("a"), *(dict(c, choices=[dict(c["choices"][0], index=1)]) for c in text("b"))
            ),
            request={"model": "m", "n": 2},
        ),
    ),
    "logprobs-missing": Case(
        timed(sse(*text("a")), request={"model": "m", "logprobs": True}),
        timed(sse(*text("a")), request={"model": "m", "logprobs": False}),
    ),
    "top-logprobs-count": Case(
        timed(ONE_ALTERNATIVE, request={"model": "m", "logprobs": True, "top_logprobs": 3}),
        timed(ONE_ALTERNATIVE, request={"model": "m", "logprobs": True, "top_logprobs": 1}),
    ),
    "max-tokens-not-length": Case(
        timed(
            sse(*text("a", "b"), usage_chunk(completion=2)), request={"model": "m", "max_tokens": 2}
        ),
        timed(
            sse(*text("a", "b", finish="length"), usage_chunk(completion=2)),
            request={"model": "m", "max_tokens": 2},
        ),
    ),
    "tools-ignored": Case(
        timed(
            sse(*text("a")),
            request={"model": "m", "tools": [{"type": "function"}], "tool_choice": "required"},
        ),
        timed(
            sse(*text("a")),
            request={"model": "m", "tools": [{"type": "function"}], "tool_choice": "auto"},
        ),
    ),
}
