"""stop-sequence: the answer stops at the sequence, which is not in the text."""

from __future__ import annotations

from ..model import Body, Case, Context, Result, Run, Verdict, failed, passed, user
from ..terms import CHAT_AND_ANTHROPIC, finish

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
    want = finish(result, "stop_sequence")
    if run.finish() != want:
        return failed(f"finish {run.finish() or 'none'}; expected `{want}`")
    if result.context.api == "anthropic":
        named = stop_sequence_of(run)
        if named != SEQUENCE:
            return failed(f"`stop_sequence` is {named!r}, not {SEQUENCE!r}")
    return passed(f"finish `{want}`, the sequence not in the text ({text.strip()[:40]!r})")


def stop_sequence_of(run: Run) -> object:
    """The ``stop_sequence`` an Anthropic ``message_delta`` names."""
    for payload in run.chunks():
        if isinstance(payload, dict) and payload.get("type") == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict) and delta.get("stop_sequence"):
                return delta["stop_sequence"]
    return None


CASE = Case(
    name="stop-sequence",
    apis=(*CHAT_AND_ANTHROPIC, "completions"),
    expects='With `stop: ["STOP"]`: finish `stop` (Anthropic: `stop_sequence`, naming it), '
    "and the sequence is not in the text.",
    request=request,
    check=check,
    optional=True,
)
