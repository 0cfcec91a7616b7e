"""concurrent: streams at once do not interleave or reuse ids."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import EVERY

COPIES = 4


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx)


def check(result: Result) -> Verdict:
    owners: dict[str, int] = {}
    for number, run in enumerate(result.runs, 1):
        ids = run.response_ids()
        if len(ids) > 1:
            return failed(
                f"stream {number}'s chunks carry {len(ids)} ids: {sorted(map(str, ids))[:3]}"
            )
        for chunk_id in ids:
            if str(chunk_id) in owners:
                return failed(
                    f"streams {owners[str(chunk_id)]} and {number} share the id {chunk_id!r}: "
                    "reused ids, or chunks of one stream in another"
                )
            owners[str(chunk_id)] = number
        if not run.finishes().get(0):
            return failed(f"stream {number} did not finish")
    return passed(f"{len(result.runs)} streams at once, each with its own id, each finished")


CASE = Case(
    name="concurrent",
    apis=EVERY,
    expects=f"{COPIES} identical requests at once: each stream finishes, keeps one id, and no two "
    "share one.",
    request=request,
    check=check,
    copies=COPIES,
)
