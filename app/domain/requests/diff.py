"""Two requests' differences, for the compare page (docs/teaching.md, "Compare"): how each was
sent, the parameters that differ, the tools added, removed or changed (by name), and the
messages added, removed or changed, the two lists aligned as a shortest edit script (a message
inserted in the middle is one added message, not every later one changed). Pure: it reads two
request views (model.py), either of which may be unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

import orjson

from .model import Message, RequestView, Tool

GIST = 160  # characters of a message shown in a row


@dataclass(frozen=True)
class Change:
    """One thing on both sides or one of them: ``status`` is ``same``, ``changed``, ``added``
    (only in B) or ``removed`` (only in A)."""

    key: str  # a parameter's name, a tool's name, a message's position ("A 2 / B 3")
    status: str
    a: Any
    b: Any


@dataclass(frozen=True)
class RequestDiff:
    known: tuple[bool, bool]  # whether each side's request is known
    line: tuple[Change, ...]  # method, URL
    params: tuple[Change, ...]
    tools: tuple[Change, ...]
    messages: tuple[Change, ...]

    @property
    def same(self) -> bool:
        rows = (*self.line, *self.params, *self.tools, *self.messages)
        return all(c.status == "same" for c in rows)

    def counts(self, what: str) -> dict[str, int]:
        """How many of ``params``, ``tools`` or ``messages`` are in each status."""
        found = {"same": 0, "changed": 0, "added": 0, "removed": 0}
        for change in getattr(self, what):
            found[change.status] += 1
        return found


def diff_requests(a: RequestView | None, b: RequestView | None) -> RequestDiff:
    """What differs between request A and request B."""
    empty = RequestView(None, None, "", None)
    left, right = a or empty, b or empty
    line = tuple(
        _change(name, getattr(left, name), getattr(right, name)) for name in ("method", "url")
    )
    return RequestDiff(
        known=(a is not None, b is not None),
        line=line if a is not None and b is not None else (),
        params=_by_key(
            [(p.name, p.value) for p in left.params], [(p.name, p.value) for p in right.params]
        ),
        tools=_by_key(
            [(_tool_key(t, i), _tool(t)) for i, t in enumerate(left.tools)],
            [(_tool_key(t, i), _tool(t)) for i, t in enumerate(right.tools)],
        ),
        messages=_messages(left.messages, right.messages),
    )


def gist(message: Message | None) -> str | None:
    """A message in one line: its role and its parts, cut at ``GIST`` characters."""
    if message is None:
        return None
    pieces = []
    for part in message.parts:
        if part.kind == "tool_call":
            pieces.append(f"calls {part.name or '?'}({part.arguments or ''})")
        elif part.kind == "tool_result":
            pieces.append(f"result of {part.id or part.name or '?'}: {part.text or ''}")
        elif part.kind == "other":
            pieces.append(f"({part.text})")
        else:
            pieces.append(part.text or "")
    text = " ".join(" ".join(pieces).split())
    text = text if len(text) <= GIST else text[: GIST - 1] + "…"
    return f"{message.role}: {text}"


def _change(key: str, a: Any, b: Any, missing: tuple[bool, bool] = (False, False)) -> Change:
    if missing[0]:
        return Change(key, "added", None, b)
    if missing[1]:
        return Change(key, "removed", a, None)
    return Change(key, "same" if _canonical(a) == _canonical(b) else "changed", a, b)


def _by_key(a: list[tuple[str, Any]], b: list[tuple[str, Any]]) -> tuple[Change, ...]:
    """Entries matched by key: A's in its order, then those only in B."""
    right = dict(b)
    left = dict(a)
    out = [_change(k, v, right.get(k), (False, k not in right)) for k, v in left.items()]
    out += [_change(k, None, v, (True, False)) for k, v in right.items() if k not in left]
    return tuple(out)


def _tool_key(tool: Tool, index: int) -> str:
    return tool.name or tool.kind or f"tool {index + 1}"


def _tool(tool: Tool) -> dict[str, Any]:
    return {"kind": tool.kind, "description": tool.description, "schema": tool.schema}


def _messages(a: tuple[Message, ...], b: tuple[Message, ...]) -> tuple[Change, ...]:
    keys_a, keys_b = [_canonical(m.to_json()) for m in a], [_canonical(m.to_json()) for m in b]
    out: list[Change] = []
    matcher = SequenceMatcher(a=keys_a, b=keys_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += [
                Change(_at(i, j), "same", gist(a[i]), gist(b[j]))
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        pairs = min(i2 - i1, j2 - j1)  # a replaced run: pairwise changed, the rest one-sided
        out += [
            Change(_at(i1 + k, j1 + k), "changed", gist(a[i1 + k]), gist(b[j1 + k]))
            for k in range(pairs)
        ]
        out += [Change(_at(i, None), "removed", gist(a[i]), None) for i in range(i1 + pairs, i2)]
        out += [Change(_at(None, j), "added", None, gist(b[j])) for j in range(j1 + pairs, j2)]
    return tuple(out)


def _at(i: int | None, j: int | None) -> str:
    """A message's place on each side, numbered from 1."""
    return " / ".join(f"{side} {n + 1}" for side, n in (("A", i), ("B", j)) if n is not None)


def _canonical(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return repr(value).encode()
