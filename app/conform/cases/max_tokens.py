"""max-tokens: a long answer cut by max_tokens finishes with `length`."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user

LIMIT = 5


def request(ctx: Context) -> Body:
    prompt = "Count from 1 to 300, the numbers separated by spaces, and write nothing else."
    return user(prompt, ctx, max_tokens=LIMIT, stream_options={"include_usage": True})


def check(result: Result) -> Verdict:
    run = result.first
    finish = run.finish()
    if finish != "length":
        return failed(f"finish_reason {finish or 'none'}; expected `length` at {LIMIT} tokens")
    for usage in run.usages():
        completion = usage.usage.get("completion_tokens")
        if isinstance(completion, int) and completion > LIMIT:
            return failed(f"usage says {completion} completion tokens, over max_tokens {LIMIT}")
    return passed(f"finish `length` after {len(run.text_chunks())} text chunks")


CASE = Case(
    name="max-tokens",
    apis=("chat",),
    expects=f"With `max_tokens: {LIMIT}` on a long answer: finish `length`, and no more "
    "completion tokens than asked.",
    request=request,
    check=check,
)
