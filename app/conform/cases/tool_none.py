"""tool-none: `tool_choice: "none"` gets text, no call."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CONVERSATIONAL, finish
from ..tools import TOOLS


def request(ctx: Context) -> Body:
    return user("What is the weather in Paris?", ctx, tools=TOOLS, tool_choice="none")


def check(result: Result) -> Verdict:
    run = result.first
    if run.call_starts():
        return failed(f"{len(run.call_starts())} tool call(s) though `tool_choice` was none")
    if not run.text().strip():
        return failed("no text came")
    want = finish(result, "stop")
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}`")
    return passed(f"a text answer, no tool call, finish `{want}`")


CASE = Case(
    name="tool-none",
    apis=CONVERSATIONAL,
    expects='With `tool_choice: "none"`: a text answer, no tool call, finish `stop` (`end_turn`).',
    request=request,
    check=check,
    optional=True,
)
