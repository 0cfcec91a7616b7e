"""keepalive-comment: SSE comment lines (keep-alives) in the stream."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Comment
from ...findings.engine import ANY
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule


def check(evidence: Evidence) -> Iterator[Hit]:
    comments = evidence.of(Comment)
    if comments:
        first = comments[0]
        yield Hit(
            f"{len(comments)} comment line(s), first {first.text[:80]!r}", first.raw, len(comments)
        )


RULE = Rule(
    id="keepalive-comment",
    dialects=ANY,
    severity="info",
    title="keep-alive comments",
    what="The stream holds SSE comment lines (`: OPENROUTER PROCESSING`, `: keep-alive`, `: ping`).",
    why="Comments are legal SSE and keep idle connections open, but hand-written parsers that split on `data:` choke on them, and a `data: : keepalive` line is not a comment at all.",
    breaks=("openai-go (Anthropic-compatible `: ping`)", "hand-written SSE parsers"),
    sources=(
        "https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation",
    ),
    check=check,
)
