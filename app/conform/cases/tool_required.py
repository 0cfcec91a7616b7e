"""tool-required: `tool_choice: "required"` makes a call even for a prompt that needs none."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user, warned
from ..terms import CONVERSATIONAL, finish
from ..tools import TOOLS, call_problem


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx, tools=TOOLS, tool_choice="required")


def check(result: Result) -> Verdict:
    run = result.first
    calls = run.calls()
    if not calls:
        return failed(f"no tool call though `tool_choice` was required: {run.text()[:60]!r}")
    problem = call_problem(run)
    if problem:
        return failed(problem)
    want = finish(result, "tool_calls")
    if run.finish() != want:
        return warned(f"a call, but finish {run.finish() or 'none'}, not `{want}`")
    return passed(f"{len(calls)} call(s), finish `{want}`")


CASE = Case(
    name="tool-required",
    apis=CONVERSATIONAL,
    expects='With `tool_choice: "required"` (Anthropic: `any`): at least one valid tool call, '
    "finish `tool_calls` (`tool_use`).",
    request=request,
    check=check,
    optional=True,
)
