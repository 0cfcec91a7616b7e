"""The dialect captures (tests/captures/dialects, with SOURCES.md) and what each official SDK
assembles from them (expected/, see its README): shared by the dialect tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.summary import summarize

DIALECT_CAPTURES = Path(__file__).resolve().parent.parent / "captures" / "dialects"
EXPECTED = DIALECT_CAPTURES / "expected"
# The expected files' dialect names -> the registered names (docs/dialects.md).
NAMES = {
    "anthropic": "anthropic-messages",
    "responses": "openai-responses",
    "gemini": "gemini",
    "ollama": "ollama",
    "completion": "completions",
    "cohere": "cohere",
    "bedrock": "bedrock-converse",
}


def captures(prefix: str = "") -> list[str]:
    return sorted(
        p.name
        for p in DIALECT_CAPTURES.iterdir()
        if p.is_file() and p.suffix != ".md" and p.name.startswith(prefix)
    )


def expected(name: str) -> dict[str, Any]:
    return json.loads((EXPECTED / f"{name}.json").read_text(encoding="utf-8"))


def summary(name: str) -> dict[str, Any]:
    """The one stream of a dialect capture, summed up as ``inspect --json`` does."""
    capture = read_capture((DIALECT_CAPTURES / name).read_bytes())
    assert len(capture.streams) == 1, [d.message for d in capture.all_diagnostics]
    return plain(summarize(capture.streams[0]))


def same_arguments(ours: str, theirs: str | None) -> bool:
    """Argument strings as streamed; the SDK side re-serialised object arguments
    (``json.dumps``), so those compare as JSON values."""
    if ours == (theirs or ""):
        return True
    try:
        return json.loads(ours) == json.loads(theirs or "null")
    except json.JSONDecodeError:
        return False
