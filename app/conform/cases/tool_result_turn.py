"""tool-result-turn: the tool's result sent back in a second request gets a text answer."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Run, Verdict, failed, passed
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
    if run.finish() != "stop":
        return failed(f"finish_reason {run.finish() or 'none'}; expected `stop`")
    made = "" if result.first.calls() else " (the first answer made no call: one was made up)"
    return passed(f"a text answer to the tool's result, finish `stop`{made}")


CASE = Case(
    name="tool-result-turn",
    apis=("chat",),
    expects="A second request carrying the call and the tool's result gets a text answer, "
    "finish `stop`.",
    request=first_request,
    check=check,
    then=second,
    optional=True,
)
