"""Removing secrets from what a live run records and shows (docs/security.md, "Live runs").

Two kinds of secret: the request's own credentials (its key and header values, known exactly),
and key-shaped strings (``KEY_PATTERNS`` of ``app/captures/scrub/rules.py``). Redacting each
network read on its own would miss a key that the upstream echoes across two reads, so ``feed`` holds back
the end of a read when, and only when, it could be the start of a secret: a proper prefix of a
credential, or a piece that a key pattern could still match once more bytes come. Everything
else goes out at once, so ordinary text is not delayed; ``flush`` gives back what is held,
redacted, when the stream ends. ``text`` and ``whole`` redact a whole value at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..captures.scrub import KEY_PATTERNS, REDACTED, Redactions, sweep

KEY_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-")
WORD_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
SPACE = frozenset(b" \t\n\r\f\v")
MAX_HOLD = 16 * 1024  # longer than any key: past it, a key-shaped run is redacted as it stands
REPLACEMENT = REDACTED.encode()

# The key patterns' form that the hold-back rule understands: optional (?i), \b, a literal,
# optional \s+, \s*, [ \t]+ or [ \t]*, then only literals and classes of key characters,
# with quantifiers.
_FORM = re.compile(
    rb"(?P<i>\(\?i\))?\\b(?P<literal>[A-Za-z0-9_]+-?(?:[A-Za-z0-9_]+-)*)"
    rb"(?P<space>(?:\\s|\[ \\t\])[+*])?(?P<rest>.*)",
    re.S,
)
_REST_ITEM = re.compile(
    rb"(?:\[(?P<chars>[^\]]+)\]|\\\.|[A-Za-z0-9_\-])(?:\{\d+(?:,\d*)?\}|[+*?])?"
)
_CLASS_ITEM = re.compile(rb"[A-Z]-[A-Z]|[a-z]-[a-z]|[0-9]-[0-9]|\\[-.]|[A-Za-z0-9_.~+/=]")


@dataclass(frozen=True)
class Shape:
    """How a key pattern starts: ``literal`` (``sk-``, ``Bearer``), then key characters, after
    whitespace when ``space``. Whatever a match holds after its literal is a key character."""

    literal: bytes
    ignore_case: bool = False
    space: bool = False

    def could_start(self, view: bytes, at: int, keys_from: int) -> bool:
        """Could a match start at ``at`` and go on past the end of ``view``? ``keys_from``: where
        the run of key characters that ends ``view`` starts."""
        piece = view[at : at + len(self.literal)]
        literal = self.literal
        if self.ignore_case:
            piece, literal = piece.lower(), literal.lower()
        if len(piece) < len(literal):
            return literal.startswith(piece)
        if piece != literal:
            return False
        after = at + len(literal)
        if self.space:
            while after < len(view) and view[after] in SPACE:
                after += 1
        return after >= keys_from


def shape_of(pattern: re.Pattern[bytes]) -> Shape | None:
    """The pattern's ``Shape``, or None for a form this module does not understand (then any
    run of key characters from a word start is held: safe, and it holds more)."""
    form = _FORM.fullmatch(pattern.pattern)
    if form is None:
        return None
    rest = form["rest"]
    for item in _items(_REST_ITEM, rest):
        if item is None:
            return None
        chars = item["chars"]
        if chars is not None and any(part is None for part in _items(_CLASS_ITEM, chars)):
            return None
    ignore_case = bool(form["i"]) or bool(pattern.flags & re.IGNORECASE)
    return Shape(form["literal"], ignore_case, bool(form["space"]))


def _items(item: re.Pattern[bytes], text: bytes) -> list[re.Match[bytes] | None]:
    """``text`` cut into ``item`` matches, with None where it cannot be."""
    found: list[re.Match[bytes] | None] = []
    at = 0
    while at < len(text):
        match = item.match(text, at)
        if match is None or match.end() == at:
            return [*found, None]
        found.append(match)
        at = match.end()
    return found


SHAPES: tuple[Shape | None, ...] = tuple(shape_of(pattern) for _, pattern in KEY_PATTERNS)
LONGEST_LITERAL = max((len(shape.literal) for shape in SHAPES if shape), default=0)


class Redactor:
    """One per run: the request's credentials, what was redacted, and the bytes held back."""

    def __init__(self, secrets: list[str]) -> None:
        found = {s.encode() for s in secrets if s and s not in REDACTED}
        self._secrets = sorted(found, key=len, reverse=True)
        self.redactions = Redactions()
        self._held = b""
        self._before = b""  # the last byte let out: where a key pattern's \b looks
        self._in_key = False  # a key-shaped run longer than MAX_HOLD was cut: drop its rest
        self._max_hold = MAX_HOLD + max((len(s) for s in self._secrets), default=0)

    # ------------------------------------------------------------------ whole values
    def whole(self, data: bytes) -> bytes:
        return sweep(self._credentials(data), self.redactions)

    def text(self, value: str) -> str:
        return self.whole(value.encode()).decode(errors="replace")

    # ------------------------------------------------------------------ a stream of reads
    def feed(self, data: bytes) -> bytes:
        """What of ``data`` (after what was held) can go out now, redacted."""
        if self._in_key:
            data = self._drop_key_rest(data)
        view = self._before + self._credentials(self._held + data)
        start = len(self._before)
        cut = self._hold_from(view, start)
        if len(view) - cut > self._max_hold:
            # Longer than any key: redact the run whole, and drop the rest of it to come.
            self.redactions["key-shaped run"] += 1
            out = self._sweep(view[:cut], start) + REPLACEMENT
            self._held, self._before, self._in_key = b"", REPLACEMENT[-1:], True
            return out
        out = self._sweep(view[:cut], start)
        self._held = view[cut:]
        if cut > start:
            self._before = view[cut - 1 : cut]
        return out

    def flush(self) -> bytes:
        """The bytes held back, redacted; the stream has ended."""
        view = self._before + self._held
        self._held = b""
        return self._sweep(view, len(self._before))

    # ------------------------------------------------------------------ helpers
    def _credentials(self, data: bytes) -> bytes:
        for secret in self._secrets:
            if secret in data:
                self.redactions["request credential"] += data.count(secret)
                data = data.replace(secret, REPLACEMENT)
        return data

    def _hold_from(self, view: bytes, start: int) -> int:
        """Where the part that could be the start of a secret begins (``len(view)``: none)."""
        cut = len(view)
        for secret in self._secrets:
            for size in range(min(len(secret) - 1, len(view) - start), 0, -1):
                if view.endswith(secret[:size]):
                    cut = min(cut, len(view) - size)
                    break
        keys_from = len(view)
        while keys_from > start and view[keys_from - 1] in KEY_CHARS:
            keys_from -= 1
        spaces_from = keys_from
        while spaces_from > start and view[spaces_from - 1] in SPACE:
            spaces_from -= 1
        for at in self._word_starts(view, max(start, spaces_from - LONGEST_LITERAL)):
            if at >= cut:
                break
            if any(
                at >= keys_from if shape is None else shape.could_start(view, at, keys_from)
                for shape in SHAPES
            ):
                cut = at
                break
        return self._before_matches(view, start, cut)

    @staticmethod
    def _word_starts(view: bytes, begin: int) -> list[int]:
        return [
            at
            for at in range(begin, len(view))
            if view[at] in WORD_CHARS and (at == 0 or view[at - 1] not in WORD_CHARS)
        ]

    @staticmethod
    def _before_matches(view: bytes, start: int, cut: int) -> int:
        """Move ``cut`` back to the start of any whole match that spans it."""
        moved = True
        while moved and cut < len(view):
            moved = False
            for _, pattern in KEY_PATTERNS:
                for match in pattern.finditer(view, start):
                    if match.start() < cut < match.end():
                        cut, moved = match.start(), True
                        break
        return cut

    def _sweep(self, view: bytes, start: int) -> bytes:
        """``scrub.sweep`` over ``view[start:]``, with ``view[:start]`` as the context a
        pattern's ``\\b`` looks at."""
        for kind, pattern in KEY_PATTERNS:
            pieces, last = [], start
            for match in pattern.finditer(view, start):
                pieces += [view[last : match.start()], REPLACEMENT]
                last = match.end()
            if pieces:
                self.redactions[kind] += len(pieces) // 2
                view = view[:start] + b"".join(pieces) + view[last:]
        return view[start:]

    def _drop_key_rest(self, data: bytes) -> bytes:
        kept = 0
        while kept < len(data) and data[kept] in KEY_CHARS:
            kept += 1
        if kept < len(data):
            self._in_key = False
        return data[kept:]
