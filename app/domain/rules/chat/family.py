"""The dialects that share the chat-completion chunk's rules (chat and legacy completions),
and what several of those rules ask of a stream: its choices and which of them finished."""

from __future__ import annotations

from ...events import Finish
from ...findings.evidence import Evidence

CHAT_FAMILY = ("chat-completions", "completions")


def choice_indices(evidence: Evidence) -> list[int]:
    """The stream's choices, in the order they first came (the first few, sightings.py)."""
    return [s.value for s in evidence.sightings.samples("choice_new")]


def finished(evidence: Evidence) -> set[int]:
    """The choices that sent a finish reason (not ``""``)."""
    return {f.choice for f in evidence.of(Finish) if f.reason != ""}


def unfinished(evidence: Evidence) -> list[int]:
    done = finished(evidence)
    return [c for c in choice_indices(evidence) if c not in done]


def all_finished(evidence: Evidence) -> bool:
    return bool(choice_indices(evidence)) and not unfinished(evidence)
