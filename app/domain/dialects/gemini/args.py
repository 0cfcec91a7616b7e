"""One Gemini function call's arguments streamed as Vertex ``partialArgs`` (docs/dialects.md,
"Gemini").

Vertex AI can stream a call's arguments as fragments, each a value at a JSON path
(``{"jsonPath": "$.location", "stringValue": "New", "willContinue": true}``); a string whose
fragment says ``willContinue`` goes on in the next fragment for the same path. ``CallArgs``
joins them two ways at once:

* ``value``: the arguments object, each value set at its path (what the call's ``args`` is);
* the JSON text of that object, written fragment by fragment as the values arrive (what the
  timeline shows as the call's ``tool_args``). Joined, the pieces are exactly
  ``orjson.dumps(value)`` as long as the paths come in document order (a path never goes back
  into a member already written). A fragment that does go back ends the text there
  (``in_order`` turns false); ``value`` stays whole.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

Segment = str | int
_STEP = re.compile(r"""\.([^\W\d]\w*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]""")
_ESCAPE = re.compile(r"\\(.)")
_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue")


def parse_path(path: Any) -> list[Segment] | None:
    """``$.a.b[0]['c d']`` (RFC 9535 names and indices; the leading ``$`` may be left out)
    into its steps; None when it is not such a path."""
    if not isinstance(path, str):
        return None
    text = path[1:] if path.startswith("$") else "." + path if path[:1].isalpha() else path
    steps: list[Segment] = []
    pos = 0
    while pos < len(text):
        match = _STEP.match(text, pos)
        if match is None:
            return None
        name, index, single, double = match.groups()
        quoted = single if single is not None else double
        steps.append(
            int(index) if index is not None else name if name else _ESCAPE.sub(r"\1", quoted or "")
        )
        pos = match.end()
    return steps or None


def fragment_value(arg: dict[str, Any]) -> tuple[bool, Any]:
    """The value one ``partialArgs`` entry carries: (found, value)."""
    for key in _VALUE_KEYS:
        if key in arg:
            return True, None if key == "nullValue" else arg[key]
    return False, None


@dataclass
class _Open:
    """A container whose JSON text is open: its step from its parent, and what it holds."""

    step: Segment | None
    array: bool
    members: int = 0
    keys: set[Segment] = field(default_factory=set)


@dataclass
class CallArgs:
    value: dict[str, Any] = field(default_factory=dict)
    in_order: bool = True
    _stack: list[_Open] = field(default_factory=list)
    _string: list[Segment] | None = None  # the path of a string still open in the text
    _continues: set[tuple[Segment, ...]] = field(default_factory=set)

    def put(self, path: list[Segment], value: Any, will_continue: bool = False) -> str:
        """Set ``value`` at ``path``; returns the JSON text this adds (may be empty)."""
        if not self._set(path, value, will_continue):
            self.in_order = False
            return ""
        return self._write(path, value, will_continue) if self.in_order else ""

    def close(self, had_args: bool) -> str:
        """The text that closes what is open; ``{}`` when nothing was written but the call
        sent an (empty) ``args`` object."""
        if not self.in_order:
            return ""
        if not self._stack:
            return "{}" if had_args else ""
        out = '"' if self._string is not None else ""
        self._string = None
        while self._stack:
            out += "]" if self._stack.pop().array else "}"
        return out

    def text(self) -> str:
        """The whole arguments as JSON text (used when the fragments went out of order)."""
        return orjson.dumps(self.value).decode()

    # ------------------------------------------------------------------ the object
    def _set(self, path: list[Segment], value: Any, will_continue: bool) -> bool:
        node: Any = self.value
        for step, after in itertools.pairwise(path):
            child = _child(node, step)
            if child is None:
                child = [] if isinstance(after, int) else {}
                if not _assign(node, step, child):
                    return False
            elif not isinstance(child, dict | list):
                return False
            node = child
        key = tuple(path)
        old = _child(node, path[-1])
        if key in self._continues and isinstance(old, str) and isinstance(value, str):
            value = old + value
        if will_continue:
            self._continues.add(key)
        else:
            self._continues.discard(key)
        return _assign(node, path[-1], value)

    # ------------------------------------------------------------------ the text
    def _write(self, path: list[Segment], value: Any, will_continue: bool) -> str:
        out = ""
        if self._string is not None:
            if self._string == path and isinstance(value, str):
                return self._string_text(path, value, will_continue, opening=False)
            out += '"'
            self._string = None
        if not self._stack:
            out += "{"
            self._stack.append(_Open(None, array=False))
        depth = 1
        while (
            depth < len(self._stack)
            and depth < len(path)
            and self._stack[depth].step == path[depth - 1]
        ):
            depth += 1
        while len(self._stack) > depth:
            out += "]" if self._stack.pop().array else "}"
        for i in range(depth - 1, len(path)):
            top, step = self._stack[-1], path[i]
            if step in top.keys or isinstance(step, int) != top.array:
                self.in_order = False
                return ""
            if top.array and step != top.members:
                self.in_order = False
                return ""
            out += "," if top.members else ""
            out += "" if top.array else orjson.dumps(step).decode() + ":"
            top.members += 1
            top.keys.add(step)
            if i < len(path) - 1:
                array = isinstance(path[i + 1], int)
                out += "[" if array else "{"
                self._stack.append(_Open(step, array))
        if isinstance(value, str):
            return out + self._string_text(path, value, will_continue, opening=True)
        return out + orjson.dumps(value).decode()

    def _string_text(self, path: list[Segment], text: str, open_: bool, *, opening: bool) -> str:
        out = ('"' if opening else "") + orjson.dumps(text).decode()[1:-1]
        if open_:
            self._string = list(path)
        else:
            self._string = None
            out += '"'
        return out


def _child(node: Any, step: Segment) -> Any:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step)
    if isinstance(node, list) and isinstance(step, int) and step < len(node):
        return node[step]
    return None


def _assign(node: Any, step: Segment, value: Any) -> bool:
    if isinstance(node, dict) and isinstance(step, str):
        node[step] = value
        return True
    if isinstance(node, list) and isinstance(step, int):
        node.extend([None] * (step + 1 - len(node)))
        node[step] = value
        return True
    return False
