"""long: a few hundred tokens, to see the chunk sizes and how reads coalesce them."""

from __future__ import annotations

from statistics import median

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user, warned
from ..terms import EVERY

PROMPT = "Count from 1 to 300, the numbers separated by spaces, and write nothing else."
FEW_CHUNKS = 10  # fewer chunks than this for a long text: coalesced


def request(ctx: Context) -> Body:
    return user(PROMPT, ctx, max_tokens=1200)


def check(result: Result) -> Verdict:
    run = result.first
    chunks = run.text_chunks()
    text = run.text()
    if not chunks:
        return failed("no text came")
    if len(chunks) == 1:
        return failed(f"the whole answer ({len(text)} characters) came in one chunk: not streamed")
    reads = len({raw.t for raw in run.stream.raw}) if run.stream is not None else 0
    sizes = f"median {median(len(c) for c in chunks):g}, largest {max(len(c) for c in chunks)}"
    said = (
        f"{len(text)} characters in {len(chunks)} text chunks ({sizes} characters) over "
        f"{reads} network reads"
    )
    if len(chunks) < FEW_CHUNKS and len(text) > 200:
        return warned(f"{said}: coalesced into few chunks, so clients show it in bursts")
    return passed(said)


CASE = Case(
    name="long",
    apis=EVERY,
    expects="A few hundred tokens streamed in many chunks (the card says their sizes and "
    "how many network reads carried them).",
    request=request,
    check=check,
)
