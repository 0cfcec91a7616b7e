"""Gemini's finish reasons by number: some clients write the ``finishReason`` enum as its
integer (the proto's), which says nothing to a reader. The names are google-genai's
``FinishReason``; the numbers, the Gemini API's proto (``google.ai.generativelanguage``
``Candidate.FinishReason``). A number not listed is shown as it is."""

from __future__ import annotations

FINISH_REASONS: dict[int, str] = {
    0: "FINISH_REASON_UNSPECIFIED",
    1: "STOP",
    2: "MAX_TOKENS",
    3: "SAFETY",
    4: "RECITATION",
    5: "OTHER",
    6: "LANGUAGE",
    7: "BLOCKLIST",
    8: "PROHIBITED_CONTENT",
    9: "SPII",
    10: "MALFORMED_FUNCTION_CALL",
    11: "IMAGE_SAFETY",
    12: "UNEXPECTED_TOOL_CALL",
}


def finish_label(reason: str | int) -> str | None:
    """What to show of an integer finish reason ("STOP (1)"); None for a name, which says
    itself."""
    if isinstance(reason, str):
        return None
    name = FINISH_REASONS.get(reason)
    return f"{name} ({reason})" if name else f"{reason} (a number google-genai does not name)"
