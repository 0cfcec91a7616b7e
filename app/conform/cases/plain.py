"""plain: a short text answer, streamed as the spec says."""

from __future__ import annotations

from ...domain.events import Done
from ..model import Body, Case, Context, Result, Verdict, failed, passed, user


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx)


def check(result: Result) -> Verdict:
    run = result.first
    if not run.text().strip():
        return failed("no text came")
    finishes = run.finishes().get(0, [])
    if finishes != ["stop"]:
        return failed(f"finish_reason {', '.join(finishes) or 'none'}; expected one `stop`")
    if not run.events(Done):
        return failed("no `data: [DONE]` at the end")
    return passed(f"{len(run.text_chunks())} text chunks, finish `stop`, then [DONE]")


CASE = Case(
    name="plain",
    apis=("chat",),
    expects="A short text answer: text chunks, one finish `stop`, then `[DONE]`.",
    request=request,
    check=check,
)
