"""max-tokens: a long answer cut by max_tokens finishes with `length`."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CHAT_AND_ANTHROPIC, finish

LIMIT = 5


def request(ctx: Context) -> Body:
    prompt = "Count from 1 to 300, the numbers separated by spaces, and write nothing else."
    return user(prompt, ctx, max_tokens=LIMIT, stream_options={"include_usage": True})


def check(result: Result) -> Verdict:
    run = result.first
    want = finish(result, "length")
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}` at {LIMIT} tokens")
    for usage in run.usages():
        for name in ("completion_tokens", "output_tokens"):
            count = usage.usage.get(name)
            if isinstance(count, int) and count > LIMIT:
                return failed(f"usage says {count} {name}, over max_tokens {LIMIT}")
    return passed(f"finish `{want}` after {len(run.text_chunks())} text chunks")


CASE = Case(
    name="max-tokens",
    apis=CHAT_AND_ANTHROPIC,
    expects=f"With `max_tokens: {LIMIT}` on a long answer: finish `length` (`max_tokens`), and no more "
    "completion tokens than asked.",
    request=request,
    check=check,
)
