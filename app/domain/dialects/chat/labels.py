"""What the page shows of chat completions (labels.py): numbered choices, metrics counted in
chunks with choices, and the usage rows' short names the page always gave them."""

from __future__ import annotations

from ..labels import CHUNKS, Labels, UsageRow

USAGE_ROWS = (
    UsageRow("prompt_tokens", "prompt", "prompt_tokens", "prompt_tokens"),
    UsageRow("completion_tokens", "completion", "completion_tokens", "completion_tokens"),
    UsageRow("total_tokens", "total", "total_tokens", "total_tokens"),
    UsageRow(
        "reasoning_tokens",
        "reasoning",
        "completion_tokens_details.reasoning_tokens",
        "completion_tokens_details",
    ),
    UsageRow(
        "cached_tokens", "cached", "prompt_tokens_details.cached_tokens", "prompt_tokens_details"
    ),
)

LABELS = Labels(
    output="Choice",
    numbered=True,
    unit=CHUNKS,
    usage_rows=USAGE_ROWS,
    usage_when=("prompt_tokens", "completion_tokens"),
)
