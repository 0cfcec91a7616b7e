"""unicode: emoji and CJK split over chunks, and still whole characters."""

from __future__ import annotations

from ..model import Case, Result, Verdict, failed, passed, user, warned

SAMPLE = "Grüße 👋🏽 👨‍👩‍👧 日本語のテキスト 한국어 ✓"


def lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def check(result: Result) -> Verdict:
    run = result.first
    chunks = run.text_chunks()
    text = run.text()
    if not text:
        return failed("no text came")
    if "\ufffd" in text:
        return failed(
            "a replacement character (U+FFFD) in the text: a multi-byte character was cut "
            "between chunks and decoded alone"
        )
    split = [i for i, c in enumerate(chunks) if lone_surrogate(c)]
    if split:
        return failed(
            f"chunk {split[0] + 1} holds half of a surrogate pair (a \\uXXXX escape split over "
            "chunks): clients that decode each chunk get broken text"
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
    apis=("chat",),
    expects="Emoji, a ZWJ sequence and CJK text come back as whole characters: no U+FFFD, "
    "no half surrogate pair in a chunk.",
    request=lambda ctx: user(f"Repeat exactly: {SAMPLE}", ctx, max_tokens=200, temperature=0),
    check=check,
)
