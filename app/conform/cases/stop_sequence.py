"""stop-sequence: the answer stops at the sequence, which is not in the text."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user

SEQUENCE = "STOP"


def request(ctx: Context) -> Body:
    return user(
        f"Repeat exactly: one two three {SEQUENCE} four five",
        ctx,
        stop=[SEQUENCE],
        max_tokens=50,
        temperature=0,
    )


def check(result: Result) -> Verdict:
    run = result.first
    text = run.text()
    if SEQUENCE in text:
        return failed(f"the stop sequence {SEQUENCE!r} is in the text")
    finish = run.finish()
    if finish != "stop":
        return failed(f"finish_reason {finish or 'none'}; expected `stop`")
    return passed(f"finish `stop`, the sequence not in the text ({text.strip()[:40]!r})")


CASE = Case(
    name="stop-sequence",
    apis=("chat",),
    expects='With `stop: ["STOP"]`: finish `stop`, and the sequence is not in the text.',
    request=request,
    check=check,
    optional=True,
)
