"""max-tokens: a long answer cut by max_tokens finishes with `length`."""

from __future__ import annotations

from ...domain.events import Extra
from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import EVERY, finish

LIMIT = 5
RESPONSES_LIMIT = 16  # the least max_output_tokens OpenAI Responses takes


def request(ctx: Context) -> Body:
    prompt = "Count from 1 to 300, the numbers separated by spaces, and write nothing else."
    if ctx.api == "responses":
        return user(prompt, ctx, max_tokens=RESPONSES_LIMIT)
    return user(prompt, ctx, max_tokens=LIMIT, stream_options={"include_usage": True})


def check(result: Result) -> Verdict:
    run = result.first
    want = finish(result, "length")
    limit = RESPONSES_LIMIT if result.context.api == "responses" else LIMIT
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}` at {limit} tokens")
    if result.context.api == "responses":
        details = [e.fields.get("incomplete_details") for e in run.events(Extra)]
        reasons = [d.get("reason") for d in details if isinstance(d, dict)]
        if "max_output_tokens" not in reasons:
            return failed(f"incomplete, but `incomplete_details.reason` is {reasons or 'missing'}")
    for usage in run.usages():
        for name in ("completion_tokens", "output_tokens"):
            count = usage.usage.get(name)
            if isinstance(count, int) and count > limit:
                return failed(f"usage says {count} {name}, over max_tokens {limit}")
    return passed(f"finish `{want}` after {len(run.text_chunks())} text chunks")


CASE = Case(
    name="max-tokens",
    apis=EVERY,
    expects=f"With `max_tokens: {LIMIT}` on a long answer: finish `length` (`max_tokens`), and no more "
    "completion tokens than asked.",
    request=request,
    check=check,
)
