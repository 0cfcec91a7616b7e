"""usage-inconsistent: usage whose total is not prompt plus completion."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import Usage
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY

KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def check(evidence: Evidence) -> Iterator[Hit]:
    for usage in evidence.of(Usage):
        fields = usage.usage
        prompt, completion, total = (fields.get(k) for k in KEYS)
        if (
            type(prompt) is int
            and type(completion) is int
            and type(total) is int
            and (total != prompt + completion)
        ):
            yield Hit(
                f"total_tokens {total} is not prompt_tokens {prompt} + completion_tokens "
                f"{completion}",
                usage.raw,
            )
            return


RULE = Rule(
    id="usage-inconsistent",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="usage does not add up",
    what="A usage object's `total_tokens` is not `prompt_tokens + completion_tokens`.",
    why="Cost and quota tools read one of the three and trust it; a server's own test suites check that they add up.",
    breaks=("billing and observability tools that read `total_tokens`",),
    sources=(
        "https://github.com/vllm-project/vllm/blob/main/tests/entrypoints/openai/test_chat.py",
    ),
    check=check,
)
