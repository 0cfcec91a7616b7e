"""Whole numbers written in ASCII digits, as HTTP and URLs write them (a ``Host`` port, a
``Content-Length``, a query parameter, a ``Retry-After``).

``str.isdigit()`` also takes superscripts and other scripts' digits (``²``, ``٣``), which
``int()`` refuses, so a check with it let a ``Host`` ending in ``²`` through to a 500
(docs/security.md, "Odd bytes")."""

from __future__ import annotations


def whole_number(text: str, max_digits: int | None = None) -> int | None:
    """``text`` as a whole number >= 0 when it is only ASCII digits (at most ``max_digits``
    of them), else None."""
    if not text or not text.isascii() or not text.isdigit():
        return None
    if max_digits is not None and len(text) > max_digits:
        return None
    return int(text)
