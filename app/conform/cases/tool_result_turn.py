"""tool-result-turn: the tool's result sent back in a second request gets a text answer."""

from __future__ import annotations

import orjson

from ..model import Body, Case, Context, Result, Run, Verdict, failed, passed
from ..terms import CONVERSATIONAL, finish
from ..tools import NAME, RESULT
from .tool_single import request as first_request

MADE_UP_ID = "call_conform_1"


def second(ctx: Context, run: Run) -> Body:
    """The conversation so far with the call the first answer made (or one made up, when it
    made none) and the tool's result."""
    calls = run.calls()
    call_id = (calls[0].id if calls else None) or MADE_UP_ID
    arguments = calls[0].arguments if calls and calls[0].status == "valid" else '{"city": "Paris"}'
    body = first_request(ctx)
    if ctx.api == "anthropic":
        body["messages"] = [
            *body["messages"],
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": NAME,
                        "input": orjson.loads(arguments),
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call_id, "content": RESULT}],
            },
        ]
        return body
    if ctx.api == "responses":  # the input items, which the common form cannot say
        body["input"] = [
            *body["messages"],
            {"type": "function_call", "call_id": call_id, "name": NAME, "arguments": arguments},
            {"type": "function_call_output", "call_id": call_id, "output": RESULT},
        ]
        return body
    body["messages"] = [
        *body["messages"],
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": NAME, "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": RESULT},
    ]
    return body


def check(result: Result) -> Verdict:
    if len(result.runs) < 2:
        return failed("the second request was not made")
    run = result.runs[1]
    if run.call_starts():
        return failed("the answer to the tool's result is another tool call, not text")
    if not run.text().strip():
        return failed("no text came in answer to the tool's result")
    want = finish(result, "stop")
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}`")
    made = "" if result.first.calls() else " (the first answer made no call: one was made up)"
    return passed(f"a text answer to the tool's result, finish `{want}`{made}")


CASE = Case(
    name="tool-result-turn",
    apis=CONVERSATIONAL,
    expects="A second request carrying the call and the tool's result gets a text answer, "
    "finish `stop` (`end_turn`).",
    request=first_request,
    check=check,
    then=second,
    optional=True,
)
