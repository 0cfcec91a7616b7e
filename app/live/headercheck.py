"""Header values that can be sent upstream: printable ASCII, spaces and tabs. A control
character (NUL, CR, LF, ...) or a non-ASCII one would make the HTTP client raise with the
value in its message, and a credential would then reach a 502, the calls list and the
recording (docs/security.md, "Odd bytes"). So each value is checked before anything is sent,
and the refusal names the header and the position of the character, never the value."""

from __future__ import annotations

import re

_UNSENDABLE = re.compile(r"[^\t\x20-\x7e]")


def unsendable(name: str, value: str) -> str | None:
    """Why ``value`` cannot be sent as header ``name`` (without quoting it), or None."""
    found = _UNSENDABLE.search(value)
    if found is None:
        return None
    char = found.group()
    what = (
        f"control character U+{ord(char):04X}"
        if ord(char) < 0x20 or ord(char) == 0x7F
        else "a character that is not ASCII"
    )
    return f"header {name}: character {found.start()} of its value is {what}"
