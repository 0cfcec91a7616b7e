"""unicode: emoji and CJK split over chunks, and still whole characters."""

from __future__ import annotations

import re

from ..model import Case, Result, Run, Verdict, failed, passed, user, warned
from ..terms import EVERY

SAMPLE = "Grüße 👋🏽 👨‍👩‍👧 日本語のテキスト 한국어 ✓"


# A high surrogate's escape not followed by a low one's: half a pair, its other half in the
# next chunk (or lost). JSON readers turn it into U+FFFD or refuse the chunk.
HALF_PAIR = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])")


def half_pair(run: Run) -> int | None:
    """The number of the first event that holds half of a surrogate pair, or None."""
    if run.stream is None:
        return None
    for index in range(len(run.stream.raw)):
        if HALF_PAIR.search(run.stream.raw_text(index)):
            return index + 1
    return None


def check(result: Result) -> Verdict:
    run = result.first
    chunks = run.text_chunks()
    text = run.text()
    if not text:
        return failed("no text came")
    split = half_pair(run)
    if split is not None:
        return failed(
            f"event {split} holds half of a surrogate pair (a \\uXXXX escape split over "
            "chunks): clients that decode each chunk get broken text"
        )
    if "\ufffd" in text:
        return failed(
            "a replacement character (U+FFFD) in the text: a multi-byte character was cut "
            "between chunks and decoded alone"
        )
    if SAMPLE in text:
        return passed(f"the sample came back whole, in {len(chunks)} chunks")
    if any(ord(c) > 127 for c in text):
        return passed(
            f"non-ASCII text came whole, in {len(chunks)} chunks (not the sample verbatim)"
        )
    return warned("no non-ASCII text came back: nothing to check")


CASE = Case(
    name="unicode",
    apis=EVERY,
    expects="Emoji, a ZWJ sequence and CJK text come back as whole characters: no U+FFFD, "
    "no half surrogate pair in a chunk.",
    request=lambda ctx: user(f"Repeat exactly: {SAMPLE}", ctx, max_tokens=200, temperature=0),
    check=check,
)
