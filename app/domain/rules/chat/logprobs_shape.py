"""logprobs-shape: logprobs in another shape than chat completions'."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings.evidence import Evidence
from ...findings.model import Hit, Rule
from ..common import sighted, times
from .family import CHAT_FAMILY


def check(evidence: Evidence) -> Iterator[Hit]:
    if evidence.dialect != "chat-completions":
        return
    yield from sighted(
        evidence,
        "logprobs_completions_shape",
        lambda n, keys: times(n, f"logprobs came in the completions shape ({', '.join(keys)})"),
    )
    entry = evidence.first_logprob_entry
    if entry is not None and "bytes" not in entry and evidence.first_logprobs is not None:
        yield Hit("logprob entries have no bytes", evidence.first_logprobs.raw)


RULE = Rule(
    id="logprobs-shape",
    dialects=CHAT_FAMILY,
    severity="warning",
    title="logprobs shape",
    what="A chat chunk's logprobs are in the legacy completions shape (`tokens`, `token_logprobs`, `top_logprobs` lists), or their entries lack `bytes`.",
    why="Chat clients read `logprobs.content[]` entries of `token`, `logprob`, `bytes` and `top_logprobs`: another shape is silently empty, and without `bytes` a token split inside a UTF-8 character cannot be rebuilt.",
    breaks=(
        "openai-python (logprobs None or a validation error)",
        "any client that rebuilds text from `bytes`",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/issues/3179",
        "https://github.com/ggml-org/llama.cpp/issues/10783",
    ),
    check=check,
)
