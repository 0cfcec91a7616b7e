"""The sweep: every secret the rules (``rules.py``) can find in text, applied to every format.

In order: JSON string literals whose escapes could hide a secret (an escaped ASCII character,
``\\/``, a secret name after an escaped newline or quote) are decoded and swept as the reader
will see them, and written back when something was removed; then URL user-info, secret query
and fragment parameters, ``Name: value`` lines with a secret header name (HTTP heads,
``curl -v`` pastes), JSON fields with an unambiguous secret name, HAR-style
``{"name": <secret header>, "value": ...}`` pairs, and key-shaped strings.

``sweep_pieces`` sweeps a text cut into pieces (a timed capture's network reads) as one text,
so a secret cut in two by a read boundary is found; each removal lands in the piece where the
secret started, and the other pieces lose their part of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar
from urllib.parse import unquote_plus

from .redactions import REDACTED, Redactions
from .rules import (
    KEY_PATTERNS,
    SECRET_ROOTS,
    TEXT_FIELDS,
    is_key,
    is_secret_header,
    is_secret_param,
    name_pattern,
)
from .strings import TOKEN, Strings
from .strings import structure as strings_structure

T = TypeVar("T")
Edit = tuple[int, int, bytes]
CHECK_EVERY = 1024  # matches between two looks at the budget (docs/security.md)
Finder = Callable[[bytes, Redactions], list[Edit]]
Replace = Callable[[re.Match[bytes], Redactions], bytes | None]
_RED = REDACTED.encode()
_ROOTS = SECRET_ROOTS.encode()
_FIELDS = name_pattern(TEXT_FIELDS).encode()
# The readers' string rule (strings.py), possessive: its parts cannot overlap, so nothing it
# gives back could match otherwise.
_STRING = rb'"([^"\\\r\n]*+(?:\\.[^"\\\r\n]*+)*+)"'
_APART = b"\x00"  # between pieces, no key shape spans it, and it is no word character
# An escape behind which a secret could hide from the patterns below; each starts with a
# backslash, so a text without one is passed over quickly. Any number of backslashes: a JSON
# string inside a JSON string (a request body an upstream echoes in its answer) escapes its
# escapes again, and each level is decoded and swept in turn. From the first backslash of a
# run only: from each of them, the run would be scanned again.
_HIDING = re.compile(
    rb"(?<!\\)\\++(?:u00[0-7][0-9a-fA-F]|/"
    rb"|[nr][ \t]*+(?:[<>*:][ \t]*+)?[\w\-]{0,64}?(?i:" + _ROOTS + rb")"
    rb'|"(?i:' + _FIELDS + rb')\\++")'
)


def _spending(matches: Iterable[T], redactions: Redactions) -> Iterator[T]:
    """The matches, the scrub's budget checked every ``CHECK_EVERY`` of them."""
    for count, match in enumerate(matches, 1):
        if count % CHECK_EVERY == 0:
            redactions.budget.check()
        yield match


def _escaped_literals(text: bytes, redactions: Redactions) -> list[Edit]:
    """Decode and sweep the strings with an escape on each line where an escape could hide a
    secret (the readers' strings: ``strings.py``)."""
    edits: list[Edit] = []
    strings = Strings(text)
    line_end = 0
    for hiding in _spending(_HIDING.finditer(text), redactions):
        if hiding.start() < line_end:
            continue
        _, line_end = strings.line(hiding.start())
        for start, end in strings.closed(hiding.start()).items():
            new = _escaped_literal(text[start:end], redactions)
            if new is not None:
                edits.append((start, end, new))
    return edits


def _escaped_literal(literal: bytes, redactions: Redactions) -> bytes | None:
    if b"\\" not in literal:
        return None
    try:
        text = json.loads(literal.decode("utf-8", "replace"), strict=False)
    except ValueError:
        return None
    clean = sweep_str(text, redactions)
    return None if clean == text else json.dumps(clean).encode()


def _userinfo(match: re.Match[bytes], redactions: Redactions) -> bytes | None:
    redactions["url credentials"] += 1
    return b"://"


def _param(match: re.Match[bytes], redactions: Redactions) -> bytes | None:
    sep, name, value = match.group(1, 2, 3)
    decoded = unquote_plus(name.decode("utf-8", "replace"))
    if not value or value == _RED or not is_secret_param(decoded):
        return None
    redactions[f"query parameter {decoded.lower()}"] += 1
    return sep + name + b"=" + _RED


def _header_line(match: re.Match[bytes], redactions: Redactions) -> bytes | None:
    lead, head, name, value = match.group(1, 2, 3, 4)
    text = name.decode()
    structure = strings_structure(value)
    if value.strip() in (b"", _RED + structure) or not is_secret_header(text):
        return None
    redactions[f"header {text.lower()}"] += 1
    return lead + head + _RED + structure


# A ``Name: value`` line (after ``> ``, ``< ``, ``* `` from ``curl -v``, ``0064: `` from
# ``curl --trace-ascii``, or ``:``, a comment);
# a line starts after CR or LF, as in SSE. Searched from the line break: a pattern that starts
# with a character class is scanned for much faster than one that starts with an assertion.
# The first line is anchored (``\\A``): searched from every byte, a run of blanks would be
# scanned again from each of them.
_HEADER_LINE = (
    rb"([ \t]*+(?:[<>*:][ \t]*+|[0-9a-f]{4,8}: )?((?=[\w\-]{0,64}?(?i:" + _ROOTS + rb"))"
    rb"[!#$%&'*+.^_`|~0-9A-Za-z\-]{1,64})[ \t]*+:[ \t]*+)([^\r\n]*+)"
)
_FIRST_LINE = re.compile(rb"\A()" + _HEADER_LINE)
_NEXT_LINE = re.compile(rb"([\r\n])" + _HEADER_LINE)


def _header_lines(text: bytes, redactions: Redactions) -> list[Edit]:
    first = _FIRST_LINE.search(text)
    edits = []
    for match in _spending((*((first,) if first else ()), *_NEXT_LINE.finditer(text)), redactions):
        new = _header_line(match, redactions)
        if new is not None:
            edits.append((match.start(), match.end(), new))
    return edits


def _field(match: re.Match[bytes], redactions: Redactions) -> bytes | None:
    head, name, value = match.group(1, 2, 3)
    structure = strings_structure(value)
    if value == _RED + structure:
        return None
    redactions[f"field {name.decode().lower()}"] += 1
    return head + b'"' + _RED + structure + b'"'


def _pair(match: re.Match[bytes], redactions: Redactions) -> bytes | None:
    """A HAR-style ``{"name": <header>, "value": ...}`` pair: by the header rule."""
    return _field(match, redactions) if is_secret_header(match.group(2).decode()) else None


def _json_strings(pattern: re.Pattern[bytes], replace: Replace) -> Finder:
    """Matches of a ``"name": "value"`` pattern whose quoted parts (groups 2 and 3, and the
    quoted words between) are strings as the readers see them."""

    def find(text: bytes, redactions: Redactions) -> list[Edit]:
        strings = Strings(text)
        edits = []
        for match in _spending(pattern.finditer(text), redactions):
            at = match.start()
            quoted = TOKEN.finditer(match.group())
            if not all(m[1] and strings.whole(at + m.start(), at + m.end()) for m in quoted):
                continue
            new = replace(match, redactions)
            if new is not None:
                edits.append((match.start(), match.end(), new))
        return edits

    return find


def _key(kind: str) -> Replace:
    def replace(match: re.Match[bytes], redactions: Redactions) -> bytes | None:
        if not is_key(match):
            return None
        redactions[kind] += 1
        return _RED

    return replace


def _by_pattern(pattern: re.Pattern[bytes], replace: Replace) -> Finder:
    def find(text: bytes, redactions: Redactions) -> list[Edit]:
        edits = []
        for match in _spending(pattern.finditer(text), redactions):
            new = replace(match, redactions)
            if new is not None:
                edits.append((match.start(), match.end(), new))
        return edits

    return find


# Userinfo before a host: greedy, since ``@`` may occur in it (the last one ends it).
_USERINFO = re.compile(rb"://[^\s/?#\"'<>\\{}\[\],]+@")
_PARAM = re.compile(
    rb"([?&#;])((?=[^=&#;?\s\"'<>\\]{0,100}?(?i:" + _ROOTS + rb"))"
    rb"[^=&#;?\s\"'<>\\]{1,100})=([^&#;\s\"'<>\\{}\[\],]*+)"
)
_FIELD = re.compile(rb'("((?i:' + _FIELDS + rb'))"\s*+:\s*+)' + _STRING)
_PAIR = re.compile(
    rb'("name"\s*+:\s*+"([!#$%&\'*+.^_`|~0-9A-Za-z\-]{1,64})"\s*+,\s*+"value"\s*+:\s*+)' + _STRING
)


def _exactly(secret: bytes) -> Finder:
    """Every occurrence of a known secret (``Redactions.known``)."""

    def find(text: bytes, redactions: Redactions) -> list[Edit]:
        edits = []
        at = text.find(secret)
        while at >= 0:
            edits.append((at, at + len(secret), _RED))
            at = text.find(secret, at + len(secret))
        if edits:
            redactions["request credential"] += len(edits)
        return edits

    return find


_FINDERS: tuple[Finder, ...] = (
    _escaped_literals,
    _by_pattern(_USERINFO, _userinfo),
    _by_pattern(_PARAM, _param),
    _header_lines,
    _json_strings(_FIELD, _field),
    _json_strings(_PAIR, _pair),
)
_KEY_FINDERS: tuple[Finder, ...] = tuple(
    _by_pattern(pattern, _key(kind)) for kind, pattern in KEY_PATTERNS
)


def sweep(data: bytes, redactions: Redactions) -> bytes:
    """``data`` with every secret the rules find replaced with ``[redacted]``."""
    return sweep_pieces([data], redactions)[0]


def sweep_str(text: str, redactions: Redactions) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    clean = sweep(raw, redactions)
    return text if clean == raw else clean.decode("utf-8", "surrogatepass")


def sweep_pieces(pieces: list[bytes], redactions: Redactions) -> list[bytes]:
    """Sweep the pieces as one text; as many pieces come back, in the same order. Key shapes
    are then looked for in each piece on its own too: a stored read is also seen alone, where
    ``xBearer ...`` cut after the ``x`` is a key (joined, it is not)."""
    known = tuple(_exactly(secret) for secret in redactions.known)
    pieces = _sweep_joined(pieces, (*known, *_FINDERS, *_KEY_FINDERS), redactions)
    if len(pieces) > 1:
        apart = [part for piece in pieces for part in (piece, _APART)]
        pieces = _sweep_joined(apart, _KEY_FINDERS, redactions)[::2]
    return pieces


def _sweep_joined(
    pieces: list[bytes], finders: tuple[Finder, ...], redactions: Redactions
) -> list[bytes]:
    joined = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    for find in finders:
        redactions.budget.check()
        edits = find(joined, redactions)
        if edits:
            pieces = _rebuild(joined, [len(piece) for piece in pieces], edits)
            joined = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    return pieces


def _rebuild(joined: bytes, sizes: list[int], edits: list[tuple[int, int, bytes]]) -> list[bytes]:
    """Cut ``joined`` back at the piece sizes, each edit's replacement in the piece where the
    edit starts and the edited bytes taken out of every piece they covered."""
    out: list[bytes] = []
    start, index = 0, 0
    for size in sizes:
        end = start + size
        piece = bytearray()
        pos = start
        while index < len(edits) and edits[index][0] < end:
            edit_start, edit_end, new = edits[index]
            if edit_start >= pos:
                piece += joined[pos:edit_start] + new
            pos = max(pos, min(edit_end, end))
            if edit_end > end:
                break
            index += 1
        piece += joined[pos:end]
        out.append(bytes(piece))
        start = end
    return out
