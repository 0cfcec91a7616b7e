"""plain: a short text answer, streamed as the spec says."""

from __future__ import annotations

from ...domain.events import Done
from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import EVERY, finish


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
    api = result.context.api
    end = {"anthropic": "message_stop", "responses": "response.completed"}.get(api, "[DONE]")
    if api != "responses" and not run.events(Done):
        return failed(f"no `{end}` at the end")
    return passed(f"{len(run.text_chunks())} text chunks, finish `{stop}`, then {end}")


CASE = Case(
    name="plain",
    apis=EVERY,
    expects="A short text answer: text chunks, one finish `stop` (`end_turn`; Responses: "
    "`completed`), then `[DONE]` (`message_stop`).",
    request=request,
    check=check,
)
