"""n2: two choices, each with its own finish."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CHAT_AND_COMPLETIONS


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx, n=2, temperature=1)


def check(result: Result) -> Verdict:
    run = result.first
    finishes = run.finishes()
    seen = set(finishes) | {choice for choice in (0, 1) if run.text(choice)}
    if seen != {0, 1}:
        return failed(f"choices {sorted(seen) or 'none'} came; expected 0 and 1 (`n: 2`)")
    for choice in (0, 1):
        if len(finishes.get(choice, [])) != 1:
            count = len(finishes.get(choice, []))
            return failed(f"choice {choice} finished {count} times; expected once")
        if not run.text(choice):
            return failed(f"choice {choice} has no text")
    return passed(
        "two choices, each with text and one finish ("
        + ", ".join(f"{c}: {finishes[c][0]}" for c in (0, 1))
        + ")"
    )


CASE = Case(
    name="n2",
    apis=CHAT_AND_COMPLETIONS,
    expects="With `n: 2`: choices 0 and 1, each with text and exactly one finish.",
    request=request,
    check=check,
    optional=True,
)
