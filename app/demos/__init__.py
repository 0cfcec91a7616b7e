"""The bundled demo captures (``index.json`` lists them, ``SOURCES.md`` credits them)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DEMO_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Demo:
    name: str
    file: str
    title: str
    description: str
    format: str
    source: dict[str, Any]
    dialect: str = "chat-completions"  # what its payloads are (docs/dialects.md)
    # Where its times come from: "synthesized" (the timed demos: made by scripts/make_demos.py)
    # or "none" (paced evenly); docs/capture-format.md, header "timing".
    timing: str = "none"

    @property
    def path(self) -> Path:
        return DEMO_DIR / self.file

    def read_bytes(self) -> bytes:
        return self.path.read_bytes()


@cache
def catalog() -> dict[str, Demo]:
    entries = json.loads((DEMO_DIR / "index.json").read_text(encoding="utf-8"))
    return {
        e["name"]: Demo(
            e["name"],
            e["file"],
            e["title"],
            e["description"],
            e["format"],
            e["source"],
            e.get("dialect", "chat-completions"),
            e.get("timing", "none"),
        )
        for e in entries
    }


def find(name: str) -> Demo | None:
    return catalog().get(name)
