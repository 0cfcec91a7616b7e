"""tool-call-name-empty: the fragments that continue a tool call carry ``"name": ""``."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    return sighted(
        evidence,
        "tool_name_empty",
        lambda n, name: times(n, f'a fragment continuing {name!r} carried "name": ""'),
    )


RULE = Rule(
    id="tool-call-name-empty",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="tool name empty on a continuing fragment",
    what='A fragment continuing a call (same index, after the fragment that named it) carries `"function": {"name": ""}`.',
    why=(
        "The name is sent once, on the call's first fragment; the fragments after it carry "
        "arguments only. A client that keeps the last name it was sent, rather than adding the "
        'names up, ends with a call to `""`. The clients judged here read it right '
        '(openai-python 3.57.0 and langchain-openai 1.7.4 add names up, and `""` adds '
        "nothing; the AI SDK takes the name of the first fragment only): the clients that "
        "broke are those of the reports."
    ),
    breaks=(
        "gptel (LM Studio 0.3.16's calls cannot be parsed)",
        "langchain-core's streamed tool-call accumulation (the empty id and name overwrite the "
        "valid ones)",
    ),
    sources=(
        "https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/649",
        "https://github.com/langchain-ai/langchain/issues/39335",
    ),
    check=check,
)
