"""plain: a short text answer, streamed as the spec says."""

from __future__ import annotations

from ...domain.events import Done
from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CHAT_AND_ANTHROPIC, finish


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx)


def check(result: Result) -> Verdict:
    run = result.first
    if not run.text().strip():
        return failed("no text came")
    finishes = run.finishes().get(0, [])
    stop = finish(result, "stop")
    if finishes != [stop]:
        return failed(f"finish {', '.join(finishes) or 'none'}; expected one `{stop}`")
    end = "message_stop" if result.context.api == "anthropic" else "[DONE]"
    if not run.events(Done):
        return failed(f"no `{end}` at the end")
    return passed(f"{len(run.text_chunks())} text chunks, finish `{stop}`, then {end}")


CASE = Case(
    name="plain",
    apis=CHAT_AND_ANTHROPIC,
    expects="A short text answer: text chunks, one finish `stop` (`end_turn`), then `[DONE]` "
    "(`message_stop`).",
    request=request,
    check=check,
)
