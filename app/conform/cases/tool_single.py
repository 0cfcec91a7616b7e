"""tool-single: one tool call, streamed whole."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CONVERSATIONAL, finish
from ..tools import NAME, TOOLS, call_problem


def request(ctx: Context) -> Body:
    return user(
        f"What is the weather in Paris? Use the {NAME} tool.", ctx, tools=TOOLS, tool_choice="auto"
    )


def check(result: Result) -> Verdict:
    run = result.first
    calls = run.calls()
    if not calls:
        return failed(f"no tool call; the answer was text: {run.text()[:60]!r}")
    if len(calls) != 1:
        return failed(f"{len(calls)} tool calls; expected one")
    problem = call_problem(run)
    if problem:
        return failed(problem)
    want = finish(result, "tool_calls")
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}`")
    return passed(f"one call {NAME}({calls[0].arguments}), finish `{want}`")


CASE = Case(
    name="tool-single",
    apis=CONVERSATIONAL,
    expects="One tool call with an id, the tool's name and JSON-object arguments, then finish "
    "`tool_calls` (`tool_use`).",
    request=request,
    check=check,
    optional=True,
)
