"""no-usage: no usage chunk when none was asked for."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CHAT_AND_COMPLETIONS
from .include_usage import usage_chunks


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx)


def check(result: Result) -> Verdict:
    found = usage_chunks(result.first.chunks())
    if found:
        return failed(
            f"{len(found)} chunks carried usage though `stream_options.include_usage` was not "
            "set (clients that read `choices[0]` of every chunk break on a usage-only one)"
        )
    return passed("no usage chunk")


CASE = Case(
    name="no-usage",
    apis=CHAT_AND_COMPLETIONS,
    expects="Without `stream_options.include_usage`: no chunk carries usage.",
    request=request,
    check=check,
)
