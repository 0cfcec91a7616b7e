"""finish-every-chunk: a ``finishReason`` on chunks before a candidate's last."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from . import GEMINI


def check(evidence: Evidence) -> Iterator[Hit]:
    sightings = evidence.sightings
    first = sightings.first("finish_repeated")
    if first is None:
        return
    candidate, reason, at = first.value
    count = sightings.count("finish_repeated")
    yield Hit(
        f"candidate {candidate}: finishReason {reason!r} on {count + 1} chunks, not only its "
        "last (the first here)",
        at,
        count,
    )


RULE = Rule(
    id="finish-every-chunk",
    dialects=GEMINI,
    severity="warning",
    title="finishReason before the last chunk",
    what="A candidate carries a `finishReason` on more than one chunk: a chunk with a finish "
    "is followed by more chunks for that candidate.",
    why="A `finishReason` says the candidate is done; the chunk that carries it should be its "
    "last. Clients that end the turn at the first finish drop everything after it (a reply "
    "read as empty when the finish comes before the text); OpenAI-style translations turn "
    "it into a `finish_reason` on every chunk. Streamscope reads on and keeps the last finish.",
    breaks=(
        "clients that stop at the first finishReason (Kelivo; openai-translator behind "
        "one-hub's translation)",
    ),
    sources=(
        "https://github.com/router-for-me/CLIProxyAPI/issues/5651",
        "https://github.com/Chevey339/kelivo/issues/1003",
        "https://github.com/MartialBE/one-hub/issues/402",
    ),
    check=check,
)
