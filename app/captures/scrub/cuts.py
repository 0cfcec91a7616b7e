"""Where a text may be cut and its parts swept apart with the result of sweeping it whole: what
a stream swept read by read (``app/live/redact.py``) needs to know of the sweep (``text.py``).

Every rule of the sweep reads within one line (a JSON string never spans a line end, nor does a
header line, a URL or a key shape) but two: a JSON field's name and its value, and a HAR-style
``{"name": ..., "value": ...}`` pair, may have line ends between their parts. So a text may
be cut after a line end, unless a name whose value may still come (``dangling_start``) ends
the part before it.

Inside a line, only a part that no rule can start in or read as context is inert (``inert``):
JSON brackets and commas, and blanks other than line ends. Such a part can go out before its
line ends (a Gemini JSON array's closing brace), as long as the line is then swept whole.
"""

from __future__ import annotations

import re

from .rules import TEXT_FIELDS, name_pattern

# A field's name, or a pair, cut off anywhere after one of its tokens with only blanks after.
_FIELD_NAME = rb'"(?i:' + name_pattern(TEXT_FIELDS).encode() + rb')"'
_HEADER_NAME = rb'"[!#$%&\'*+.^_`|~0-9A-Za-z\-]{1,64}"'
_DANGLING = re.compile(
    rb"(?:" + _FIELD_NAME + rb"\s*+(?::\s*+)?"
    rb'|"name"\s*+(?::\s*+(?:' + _HEADER_NAME + rb'\s*+(?:,\s*+(?:"value"\s*+(?::\s*+)?)?)?)?)?'
    rb")\Z"
)
_CHAIN_TOKENS = 6  # the most tokens such a part holds: "name" : "H" , "value" :
_TOKEN_SIZE = 68  # the longest of them, quotes included
BLANKS = b" \t\n\r\f\v"
# Brackets, commas and blanks (not ":", which could begin "://"; not a line end).
_INERT = re.compile(rb"[\[\]{}, \t\r\f\v]*+\Z")
INERT_BYTES = frozenset(b"[]{}, \t\r\f\v")


def dangling_start(text: bytes, end: int) -> int | None:
    """Where a field's name or a pair begins whose value may come after ``text[:end]``, or
    None. Only the last few tokens are looked at, whatever the length of the text."""
    starts = []
    at = len(text[:end].rstrip(BLANKS))
    for _ in range(_CHAIN_TOKENS):
        if at <= 0:
            break
        last = text[at - 1 : at]
        if last in (b":", b","):
            at -= 1
        elif last == b'"':
            opening = text.rfind(b'"', max(0, at - _TOKEN_SIZE), at - 1)
            if opening < 0:
                break
            starts.append(opening)
            at = opening
        else:
            break
        at = len(text[:at].rstrip(BLANKS))
    for start in reversed(starts):  # the earliest first: a pair holds its header's name
        if _DANGLING.match(text, start, end):
            return start
    return None


def inert(data: bytes) -> bool:
    """Whether ``data`` (a part of a line) is only brackets, commas and blanks."""
    return _INERT.match(data) is not None
