"""include-usage: exactly one usage chunk, with `choices: []`, whose numbers add up."""

from __future__ import annotations

from typing import Any

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user
from ..terms import CHAT_AND_COMPLETIONS


def request(ctx: Context) -> Body:
    return user("Say hello.", ctx, stream_options={"include_usage": True})


def usage_chunks(chunks: list[Any]) -> list[dict[str, Any]]:
    return [c for c in chunks if isinstance(c, dict) and isinstance(c.get("usage"), dict)]


def check(result: Result) -> Verdict:
    chunks = result.first.chunks()
    found = usage_chunks(chunks)
    if not found:
        return failed("no usage chunk came, though `stream_options.include_usage` was true")
    if len(found) > 1:
        return failed(f"{len(found)} chunks carried usage; expected exactly one, the last")
    last = found[0]
    if last.get("choices") != []:
        return failed(f"the usage chunk has `choices: {str(last.get('choices'))[:60]}`, not `[]`")
    if last is not chunks[-1]:
        return failed("a chunk came after the usage chunk; it should be the last")
    usage = last["usage"]
    numbers = {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    if not all(isinstance(v, int) and v >= 0 for v in numbers.values()):
        return failed(f"usage numbers missing or not counts: {numbers}")
    if numbers["prompt_tokens"] + numbers["completion_tokens"] != numbers["total_tokens"]:
        return failed(f"prompt_tokens + completion_tokens != total_tokens: {numbers}")
    return passed(
        f"one usage chunk, last, `choices: []`: {numbers['prompt_tokens']} + "
        f"{numbers['completion_tokens']} = {numbers['total_tokens']}"
    )


CASE = Case(
    name="include-usage",
    apis=CHAT_AND_COMPLETIONS,
    expects="With `stream_options.include_usage`: exactly one usage chunk, the last, with "
    "`choices: []`, and prompt + completion = total.",
    request=request,
    check=check,
    optional=True,
)
