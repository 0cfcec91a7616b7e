"""reasoning: where the model reasons, which field carries it, and none of it in the content."""

from __future__ import annotations

import re

from ..model import Body, Case, Context, Result, Verdict, failed, passed, unsupported, user, warned
from ..terms import CONVERSATIONAL

THINK_TAG = re.compile(r"</?think(ing)?>", re.IGNORECASE)


def request(ctx: Context) -> Body:
    prompt = "What is 17 * 23? Think it through briefly, then answer with the number."
    if ctx.api == "anthropic":
        thinking = {"type": "enabled", "budget_tokens": 1024}
        return user(prompt, ctx, thinking=thinking, max_tokens=2000)
    if ctx.api == "responses":
        return user(prompt, ctx, reasoning={"effort": "low", "summary": "auto"}, max_tokens=2000)
    return user(prompt, ctx, reasoning_effort="low", max_tokens=2000)


def check(result: Result) -> Verdict:
    run = result.first
    text = run.text()
    tag = THINK_TAG.search(text)
    if tag:
        return failed(
            f"the reasoning leaked into the content ({tag.group(0)} in the text): clients show "
            "it as the answer"
        )
    deltas = run.reasoning()
    if not deltas:
        return unsupported("no reasoning came: the model does not reason, or it is not streamed")
    fields = ", ".join(f"`{name}`" for name in dict.fromkeys(d.field for d in deltas))
    if not text.strip():
        return warned(f"reasoning in {fields}, but no answer text after it")
    return passed(f"{len(deltas)} reasoning chunks in {fields}, kept out of the content")


CASE = Case(
    name="reasoning",
    apis=CONVERSATIONAL,
    expects="Where the model reasons: the card names the field that carries it, and none of it "
    "(no `<think>` tags) is in the content.",
    request=request,
    check=check,
    optional=True,
)
