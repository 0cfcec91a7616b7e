"""content-type-mismatch: a response whose Content-Type is not its body's."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.engine import ANY
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule

EXPECTED = {
    "sse": ("text/event-stream",),
    "lines": ("application/x-ndjson", "application/jsonl", "application/json"),
    "eventstream": ("application/vnd.amazon.eventstream",),
}
NAMES = {"sse": "an event stream", "lines": "JSON lines", "eventstream": "AWS event-stream frames"}


def check(evidence: Evidence) -> Iterator[Hit]:
    stream = evidence.stream
    media = (stream.content_type or "").split(";", 1)[0].strip().lower()
    expected = EXPECTED.get(stream.container)
    if expected and media and media not in expected:
        yield Hit(
            f"Content-Type is {media!r}; the body is {NAMES[stream.container]}, sent as {expected[0]!r}"
        )


RULE = Rule(
    id="content-type-mismatch",
    dialects=ANY,
    severity="warning",
    title="wrong Content-Type",
    what="The response's `Content-Type` is not the media type of what its body holds (`text/event-stream` for SSE, `application/x-ndjson` for JSON lines, `application/vnd.amazon.eventstream` for AWS event-stream).",
    why="Clients pick their parser by Content-Type: a stream sent as `application/json` or `text/plain` is buffered whole or parsed as one JSON document, and proxies buffer it.",
    breaks=(
        "aichat (no stream through Azure APIM)",
        "browsers' EventSource (refuses any other type)",
    ),
    sources=("https://github.com/sigoden/aichat/issues/651",),
    check=check,
    needs_headers=True,
)
