"""Routing tool-call fragments to calls (docs/assembly.md, rule 3).

Fragments merge by (choice, tool index). Servers that send no index (Mistral, Gemini compat) or
shifted ones (Anthropic compat starts at 1) are handled by a fallback: a fragment with a new
non-empty id, or a name and no id, starts a new call; anything else continues the last call.
A reused index with a different id is a new call too (Cerebras sent one whole call twice), so
duplicated calls are shown rather than merged. Indices are dictionary keys, never list
positions: an index of 10**9 costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson


@dataclass(slots=True)
class ToolCallState:
    call: int
    index: int | None
    id: str | None
    name: str | None
    type: str | None
    parts: list[str] = field(default_factory=list)
    ended: bool = False

    @property
    def arguments(self) -> str:
        return "".join(self.parts)


@dataclass(slots=True)
class Routed:
    """Where one fragment went: the call, whether it is new or got a new id/name, its text."""

    state: ToolCallState
    started: bool
    identity_changed: bool
    arguments: str | None
    notes: list[tuple[str, str]]


def _nonempty(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class ChoiceToolCalls:
    """The tool calls of one choice, in arrival order."""

    def __init__(self) -> None:
        self.calls: list[ToolCallState] = []
        self._by_index: dict[int, ToolCallState] = {}

    def route(self, fragment: dict[str, Any]) -> Routed:
        notes: list[tuple[str, str]] = []
        index = fragment.get("index")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            notes.append(("tool_index_invalid", f"tool call index {index!r} is not an integer"))
            index = None
        call_id = _nonempty(fragment.get("id"))
        function = fragment.get("function")
        if not isinstance(function, dict):
            function = {}
        name = _nonempty(function.get("name"))
        current = self._find(index, call_id, name)
        started = current is None
        if current is None:
            current = self._start(index, call_id, name, fragment.get("type"))
            identity_changed = False
        else:
            identity_changed = self._update(current, call_id, name, fragment.get("type"), notes)
        arguments = self._arguments(function, notes)
        if arguments and current.ended:
            notes.append(("tool_args_after_end", "arguments arrived after the call had ended"))
            current.ended = False
        if arguments:
            current.parts.append(arguments)
        return Routed(current, started, identity_changed, arguments, notes)

    def holder(self, fragment: dict[str, Any]) -> ToolCallState | None:
        """The call that holds the fragment's index, if it has one (before routing it)."""
        index = fragment.get("index")
        return self._by_index.get(index) if type(index) is int else None

    def _find(
        self, index: int | None, call_id: str | None, name: str | None
    ) -> ToolCallState | None:
        if index is not None:
            current = self._by_index.get(index)
            if current is None:
                return None
            if call_id and current.id and call_id != current.id:
                return None  # same index, another id: a new (possibly duplicated) call
            if name and current.name and name != current.name and not call_id:
                return None
            return current
        last = self.calls[-1] if self.calls else None
        if last is None:
            return None
        if call_id is not None and call_id != last.id:
            return None
        if call_id is None and name is not None:
            return None
        return last

    def _start(
        self, index: int | None, call_id: str | None, name: str | None, kind: Any
    ) -> ToolCallState:
        state = ToolCallState(
            len(self.calls), index, call_id, name, kind if isinstance(kind, str) else None
        )
        self.calls.append(state)
        if index is not None:
            self._by_index[index] = state
        return state

    @staticmethod
    def _update(
        state: ToolCallState,
        call_id: str | None,
        name: str | None,
        kind: Any,
        notes: list[tuple[str, str]],
    ) -> bool:
        changed = False
        if call_id and state.id is None:
            state.id = call_id
            changed = True
        if name and state.name is None:
            state.name = name
            changed = True
        elif name and name != state.name:
            notes.append(
                ("tool_name_changed", f"call {state.id or state.call} was renamed to {name!r}")
            )
        if isinstance(kind, str) and kind and state.type is None:
            state.type = kind
        return changed

    @staticmethod
    def _arguments(function: dict[str, Any], notes: list[tuple[str, str]]) -> str | None:
        arguments = function.get("arguments")
        if arguments is None or isinstance(arguments, str):
            return arguments or None
        notes.append(("tool_args_not_string", "arguments were sent as JSON, not as a string"))
        return orjson.dumps(arguments).decode()

    def open_calls(self) -> list[ToolCallState]:
        return [c for c in self.calls if not c.ended]
