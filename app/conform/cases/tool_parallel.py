"""tool-parallel: two calls in one answer, each with its own index and id."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user, warned
from ..terms import CONVERSATIONAL, finish
from ..tools import NAME, TOOLS, call_problem


def request(ctx: Context) -> Body:
    return user(
        f"What is the weather in Paris and in Tokyo? Call {NAME} once for each city, both at once.",
        ctx,
        tools=TOOLS,
        tool_choice="auto",
        **({} if ctx.api == "anthropic" else {"parallel_tool_calls": True}),
    )


def check(result: Result) -> Verdict:
    run = result.first
    calls = run.calls()
    if not calls:
        return failed(f"no tool call; the answer was text: {run.text()[:60]!r}")
    problem = call_problem(run)
    if problem:
        return failed(problem)
    want = finish(result, "tool_calls")
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}`")
    if len(calls) < 2:
        return warned("one tool call: the model did not call in parallel")
    indices = [s.index for s in run.call_starts()]
    return passed(f"{len(calls)} calls, indices {indices}, distinct ids, finish `{want}`")


CASE = Case(
    name="tool-parallel",
    apis=CONVERSATIONAL,
    expects="Two tool calls in one answer, each with its own index and id and JSON arguments, "
    "then finish `tool_calls` (`tool_use`).",
    request=request,
    check=check,
    optional=True,
)
