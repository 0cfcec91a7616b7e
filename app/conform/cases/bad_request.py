"""bad-request: an invalid body gets an HTTP error with a JSON error body, not a 200 stream."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, warned
from ..terms import EVERY


def request(ctx: Context) -> Body:
    return {"model": ctx.model, "messages": "not a list of messages", "max_tokens": -1}


def check(result: Result) -> Verdict:
    run = result.first
    if run.status == 200:
        return failed("HTTP 200 for an invalid body (`messages` a string, `max_tokens: -1`)")
    answer = run.error_body()
    error = answer.get("error") if isinstance(answer, dict) else None
    if run.status is None or not 400 <= run.status < 600:
        return failed(f"no HTTP error came: {run.error_message()}")
    if error is None:
        body = run.body[:60].decode(errors="replace")
        return failed(f"HTTP {run.status}, but the body is not a JSON error object: {body!r}")
    if run.status >= 500:
        return warned(
            f"HTTP {run.status} (a server error) for the client's mistake: {run.error_message()}"
        )
    return passed(f"HTTP {run.status}: {run.error_message()}")


CASE = Case(
    name="bad-request",
    apis=EVERY,
    expects="An invalid body gets an HTTP 4xx with a JSON `error` object, not a 200 stream.",
    request=request,
    check=check,
    answer="error",
)
