"""logprobs: token logprobs with the alternatives asked for, and their bytes.

Legacy completions ask with ``logprobs: <count>`` and answer in arrays (``tokens``,
``token_logprobs``, ``top_logprobs`` as objects of token to logprob): no ``bytes``, and "up to
logprobs+1" alternatives, since the sampled token's is always given (OpenAI's completions
reference). The reader puts both forms in one shape (docs/dialects.md)."""

from __future__ import annotations

from typing import Any

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user

TOP = 2


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx, logprobs=True, top_logprobs=TOP)


def check(result: Result) -> Verdict:
    legacy = result.context.api == "completions"
    entries = [entry for event in result.first.logprobs() for entry in event.entry_list()]
    if not entries:
        return failed("no logprobs came, though `logprobs` was asked")
    counts = (TOP, TOP + 1) if legacy else (TOP,)
    for number, entry in enumerate(entries, 1):
        problem = entry_problem(entry, counts, bytes_wanted=not legacy)
        if problem:
            token = entry.get("token") if isinstance(entry, dict) else None
            return failed(f"entry {number} ({token!r}): {problem}")
    if legacy:
        return passed(f"{len(entries)} tokens with logprobs, {TOP} alternatives or {TOP + 1} each")
    return passed(f"{len(entries)} tokens with logprobs, {TOP} alternatives each, bytes present")


def entry_problem(entry: Any, counts: tuple[int, ...], *, bytes_wanted: bool) -> str | None:
    if not isinstance(entry, dict):
        return "not an object"
    top = entry.get("top_logprobs")
    if not isinstance(top, list) or len(top) not in counts:
        count = len(top) if isinstance(top, list) else "no"
        return f"{count} top_logprobs; asked {TOP}"
    for item in [entry, *top]:
        if not isinstance(item, dict) or not isinstance(item.get("logprob"), (int, float)):
            return "`logprob` is not a number"
        if bytes_wanted and not isinstance(item.get("bytes"), list):
            return "`bytes` missing or not a list"
    return None


CASE = Case(
    name="logprobs",
    apis=("chat", "responses", "completions"),
    expects=f"With `logprobs: true, top_logprobs: {TOP}` (Responses: `include` "
    f"`message.output_text.logprobs`; legacy completions: `logprobs: {TOP}`): every token has "
    f"a logprob, `bytes` and {TOP} alternatives with theirs (legacy completions: {TOP} or "
    f"{TOP + 1}, no bytes).",
    request=request,
    check=check,
    optional=True,
)
