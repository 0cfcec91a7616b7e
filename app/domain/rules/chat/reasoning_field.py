"""reasoning-field: which field carried the reasoning."""

from __future__ import annotations

from collections.abc import Iterator

from ...events import ReasoningDelta
from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    fields: dict[str, ReasoningDelta] = {}
    for delta in evidence.of(ReasoningDelta):
        fields.setdefault(delta.field, delta)
    if fields:
        names = ", ".join(f"`{name}`" for name in fields)
        first = min(fields.values(), key=lambda d: d.seq)
        yield Hit(f"reasoning came in {names}", first.raw)


RULE = Rule(
    id="reasoning-field",
    dialects=CHAT_FAMILY,
    severity="info",
    title="reasoning field",
    what="Reasoning came in a delta field that only some clients read: `reasoning_content` "
    "(DeepSeek's name, vLLM's before it moved), `reasoning` (vLLM now, OpenRouter, Ollama) or "
    "Mistral's `thinking` content parts.",
    why="No OpenAI spec names the field; a client reads the one it was written for and shows "
    "no reasoning from the other.",
    breaks=(
        "LiteLLM before its fix (drops `reasoning`)",
        "Dify's OpenAI-compatible provider (reads only `reasoning_content`)",
        "openai-python (neither field: kept as extra fields)",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/pull/27752",
        "https://github.com/BerriAI/litellm/pull/20821",
        "https://github.com/langgenius/dify-official-plugins/issues/2740",
    ),
    check=check,
)
