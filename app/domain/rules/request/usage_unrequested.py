"""usage-unrequested: usage came though the request did not ask for it."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..chat.family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    request = evidence.request
    if request is None or request.include_usage or evidence.dialect != "chat-completions":
        return
    first = evidence.sightings.first("usage")
    if first is not None:
        yield Hit("usage came, but stream_options.include_usage was not set", first.raw)


RULE = Rule(
    id="usage-unrequested",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="usage not asked for",
    what="A usage chunk came though the request did not set `stream_options.include_usage: true`.",
    why="Without `include_usage` the spec sends no usage chunk; clients written to that read `choices[0]` of every chunk and fail on the usage chunk's empty `choices`.",
    breaks=(
        "apfel (IndexError on `choices[0]`)",
        "LangChain and the Vercel AI SDK (usage counted twice where it rides on a finish chunk)",
    ),
    sources=(
        "https://github.com/Arthur-Ficial/apfel/issues/100",
        "https://github.com/nguyenphutrong/quotio/issues/460",
        "https://github.com/raullenchai/Rapid-MLX/pull/792",
    ),
    check=check,
    needs_request=True,
)
