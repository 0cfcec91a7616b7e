"""logprobs: token logprobs with the alternatives asked for, and their bytes."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user

TOP = 2


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx, logprobs=True, top_logprobs=TOP)


def check(result: Result) -> Verdict:
    run = result.first
    entries = [entry for event in run.logprobs() for entry in event.entry_list()]
    if not entries:
        return failed("no logprobs came, though `logprobs: true` was asked")
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            return failed(f"logprobs entry {number} is not an object")
        top = entry.get("top_logprobs")
        if not isinstance(top, list) or len(top) != TOP:
            count = len(top) if isinstance(top, list) else "no"
            return failed(
                f"entry {number} ({entry.get('token')!r}) has {count} top_logprobs; asked {TOP}"
            )
        for item in [entry, *top]:
            if not isinstance(item, dict) or not isinstance(item.get("bytes"), list):
                return failed(
                    f"entry {number} ({entry.get('token')!r}): `bytes` missing or not a list"
                )
            if not isinstance(item.get("logprob"), (int, float)):
                return failed(f"entry {number} ({entry.get('token')!r}): `logprob` is not a number")
    return passed(f"{len(entries)} tokens with logprobs, {TOP} alternatives each, bytes present")


CASE = Case(
    name="logprobs",
    apis=("chat", "responses"),
    expects=f"With `logprobs: true, top_logprobs: {TOP}` (Responses: `include` "
    f"`message.output_text.logprobs`): every token has a logprob, `bytes` "
    f"and {TOP} alternatives with theirs.",
    request=request,
    check=check,
    optional=True,
)
