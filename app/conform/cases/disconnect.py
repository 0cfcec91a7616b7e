"""disconnect: the client hangs up after the first chunk; the next request's TTFT says whether
the server went on generating for nobody."""

from __future__ import annotations

from ...domain.metrics import compute
from ..model import Body, Case, Context, Result, Run, Verdict, failed, passed, user, warned
from ..terms import EVERY

PROMPT = "Count from 1 to 300, the numbers separated by spaces, and write nothing else."
SLOWER = 3.0  # the next TTFT this many times the first's (and a second more): generation went on
MARGIN_MS = 1000.0


def next_request(ctx: Context, run: Run) -> Body:
    return user("Say hello.", ctx)


def ttft(run: Run) -> float | None:
    return compute(run.stream).ttft_ms if run.stream is not None else None


def check(result: Result) -> Verdict:
    first = result.first
    if not first.hung_up:
        return failed(f"the answer ended ({first.reason}) before its first chunk with output")
    if len(result.runs) < 2:
        return failed("the next request was not made")
    before, after = ttft(first), ttft(result.runs[1])
    if before is None or after is None:
        return failed("no first token in the next request")
    said = f"the next request's first token after {after:,.0f} ms (the hung-up one's: {before:,.0f} ms)"
    if after > max(before * SLOWER, before + MARGIN_MS):
        return warned(f"{said}: the server may have gone on generating after the hang-up")
    return passed(f"hung up after the first chunk; {said}")


CASE = Case(
    name="disconnect",
    apis=EVERY,
    expects="After the client hangs up on a long answer, the next request's first token comes "
    "as fast as the first one's did.",
    request=lambda ctx: user(PROMPT, ctx, max_tokens=1200),
    check=check,
    then=next_request,
    hangup=True,
)
