"""Two texts diffed by token, for Compare (compare.py, docs/teaching.md "Compare").

Texts are split into tokens that mean the same in every dialect: words, runs of whitespace and
single other characters (a model's own tokens split differently from one model to another,
and most dialects send several in one chunk). The diff is a shortest edit script (Myers'
O(ND) algorithm), so the tokens in common are a longest common subsequence; past
``MAX_EDITS`` edits the texts are shown whole instead. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
MAX_TOKENS = 20_000  # per side; a longer text is diffed on its first MAX_TOKENS tokens
MAX_EDITS = 1_000


def word_tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


@dataclass(frozen=True)
class Piece:
    op: str  # "same", "removed" (only in A), "added" (only in B)
    text: str


@dataclass(frozen=True)
class TextDiff:
    pieces: list[Piece]
    same: int  # tokens in common
    removed: int
    added: int
    aligned: bool  # False: too different (or too long) to align; the texts are shown whole
    note: str = ""


def diff_texts(a: str, b: str, max_edits: int = MAX_EDITS) -> TextDiff:
    ta, tb = word_tokens(a), word_tokens(b)
    note = ""
    if len(ta) > MAX_TOKENS or len(tb) > MAX_TOKENS:
        note = f"diffed on the first {MAX_TOKENS:,} tokens of each side"
        ta, tb = ta[:MAX_TOKENS], tb[:MAX_TOKENS]
    ops = edit_script(ta, tb, max_edits)
    if ops is None:
        whole = [Piece("removed", "".join(ta)), Piece("added", "".join(tb))]
        return TextDiff(
            [p for p in whole if p.text],
            0,
            len(ta),
            len(tb),
            False,
            f"more than {max_edits:,} token edits apart: shown whole, not aligned",
        )
    pieces: list[Piece] = []
    counts = {"same": 0, "removed": 0, "added": 0}
    for op, token in ops:
        counts[op] += 1
        if pieces and pieces[-1].op == op:
            pieces[-1] = Piece(op, pieces[-1].text + token)
        else:
            pieces.append(Piece(op, token))
    return TextDiff(pieces, counts["same"], counts["removed"], counts["added"], True, note)


def edit_script(a: list[str], b: list[str], max_edits: int) -> list[tuple[str, str]] | None:
    """A shortest edit script from ``a`` to ``b`` as (op, token) pairs, or None when it takes
    more than ``max_edits`` insertions and deletions. The common prefix and suffix are taken
    off first."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = _myers(a[head : len(a) - tail], b[head : len(b) - tail], max_edits)
    if middle is None:
        return None
    same = [("same", token) for token in a[:head]]
    return same + middle + [("same", token) for token in a[len(a) - tail :]]


def _myers(a: list[str], b: list[str], max_edits: int) -> list[tuple[str, str]] | None:
    n, m = len(a), len(b)
    v = {1: 0}
    trace: list[dict[int, int]] = []
    for d in range(min(max_edits, n + m) + 1):
        trace.append(dict(v))
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[k] = x
            if x >= n and y >= m:
                return _backtrack(trace, a, b)
    return None


def _backtrack(trace: list[dict[int, int]], a: list[str], b: list[str]) -> list[tuple[str, str]]:
    x, y = len(a), len(b)
    ops: list[tuple[str, str]] = []
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        down = k == -d or (k != d and v[k - 1] < v[k + 1])
        prev_k = k + 1 if down else k - 1
        prev_x = v[prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            ops.append(("same", a[x - 1]))
            x, y = x - 1, y - 1
        if d > 0:
            ops.append(("added", b[prev_y]) if down else ("removed", a[prev_x]))
        x, y = prev_x, prev_y
    ops.reverse()
    return ops
