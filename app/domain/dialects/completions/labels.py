"""What the page shows of legacy completions (labels.py): as chat completions, numbered
choices, chunks with choices, and the same usage."""

from __future__ import annotations

from ..chat.labels import LABELS

__all__ = ["LABELS"]
