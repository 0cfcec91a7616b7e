"""What scrubbing reports: what it removed, or why a file cannot be scrubbed at all."""

from __future__ import annotations

from collections import Counter
from typing import Any

# Holds no quote or backslash, so JSON text stays JSON wherever it replaces a value.
REDACTED = "[redacted]"


class Redactions(Counter[str]):
    """What was removed, by kind, so the upload answer and the page can say so."""

    def as_list(self) -> list[dict[str, Any]]:
        return [{"kind": kind, "count": count} for kind, count in sorted(self.items())]


class Unscrubbable(ValueError):
    """A file the scrubber cannot make safe: it is refused, never stored as it is."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"cannot be scrubbed, so it was not stored: {where}: {why}")
        self.where = where
        self.why = why
