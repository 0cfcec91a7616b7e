"""The wire facts of a chunk's top level that the rules judge (docs/rules.md), for chat and
legacy completions alike: where usage came (every chunk, beside choices, without a
``choices`` key), a chunk whose ``choices`` is empty with no usage, and the chunk id as it
changes. Sighted by the full reading only: the fast paths take no chunk that has any of them.
"""

from __future__ import annotations

from typing import Any

from ...events import RawEvent
from ...interpret import PayloadInterpreter


def sight_chunk(it: PayloadInterpreter, raw: RawEvent, chunk: dict[str, Any]) -> None:
    choices = chunk.get("choices")
    if chunk.get("usage") is not None:
        it.sight(raw, "usage")
        if "choices" not in chunk:
            it.sight(raw, "usage_without_choices_key")
        elif isinstance(choices, list) and choices:
            it.sight(raw, "usage_with_choices")
    elif choices == []:
        it.sight(raw, "empty_choices", sorted(k for k in chunk if k != "choices"))


def sight_id(it: PayloadInterpreter, raw: RawEvent, before: Any, now: Any) -> None:
    """A chunk id that differs from the one before it."""
    it.sight(raw, "chunk_id_changed", (before, now))
