"""The function calls of one Gemini candidate (docs/dialects.md, "Gemini").

A ``functionCall`` part usually comes whole (``{name, args, id}``): ``tool_start``, one
``tool_args`` with the args' JSON text, ``tool_end``. Vertex AI can stream one call over
several parts instead: the first says ``willContinue: true`` (with the name, often a
``thoughtSignature``), the next carry ``partialArgs`` fragments, and the part whose
``willContinue`` is not true (often an empty ``functionCall: {}``) ends it. Those parts are one
call: each part's fragments become one ``tool_args`` piece of the args' JSON text
(``app/domain/dialects/gemini/args.py``), checked as JSON when the call ends.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import orjson

from ...events import Event, RawEvent, ToolCallArgs, ToolCallStart
from ...interpret import PayloadInterpreter
from .args import CallArgs, fragment_value, parse_path


@dataclass
class _Streamed:
    call: int
    id: str | None
    name: str | None
    args: CallArgs = field(default_factory=CallArgs)
    pieces: list[str] = field(default_factory=list)
    had_args: bool = False


class CandidateCalls:
    def __init__(self, interpreter: PayloadInterpreter, choice: int) -> None:
        # A weak reference: a strong one back to the interpreter (which holds this reader)
        # would make a cycle that keeps a dropped capture alive until a collection found it.
        self._it: PayloadInterpreter = weakref.proxy(interpreter)
        self._choice = choice
        self._count = 0
        self._open: _Streamed | None = None

    @property
    def streaming(self) -> bool:
        """A streamed call is open (its last part said ``willContinue``)."""
        return self._open is not None

    def part(self, raw: RawEvent, call: Any) -> None:
        if not isinstance(call, dict):
            self._it.note(raw, "part_shape", "error", "a functionCall that is not an object")
            return
        raw.choices = raw.output = True
        current = self._open
        if current is not None and not _same(current, call):
            self._finish(raw, current, unfinished=True)
            current = None
        if current is None and call.get("willContinue") is not True and "partialArgs" not in call:
            self._whole(raw, call)
            return
        if current is None:
            current = self._open = _Streamed(self._next(), *_names(call))
            self._start(raw, current.call, current.id, current.name)
        elif (current.id, current.name) != _fill(current, call):
            current.id, current.name = _fill(current, call)  # they arrived later: said again
            self._start(raw, current.call, current.id, current.name)
        self._fragments(raw, current, call)
        if call.get("willContinue") is not True:
            self._finish(raw, current, unfinished=False)

    def end_open(self, raw: RawEvent | None) -> None:
        """The candidate moved on (another part kind, its finish, the end of the stream)
        while a streamed call still said ``willContinue``."""
        if self._open is not None:
            self._finish(raw, self._open, unfinished=True)

    # ------------------------------------------------------------------ helpers
    def _next(self) -> int:
        self._count += 1
        return self._count - 1

    def _start(self, raw: RawEvent, call: int, call_id: str | None, name: str | None) -> None:
        start = ToolCallStart(
            choice=self._choice, call=call, index=None, id=call_id, name=name, type="function"
        )
        self._it.add(start, raw)

    def _whole(self, raw: RawEvent, call: dict[str, Any]) -> None:
        number, (call_id, name) = self._next(), _names(call)
        self._start(raw, number, call_id, name)
        text = orjson.dumps(call["args"]).decode() if "args" in call else ""
        if text:
            self._args(raw, number, text)
        self._it.end_call(
            raw, choice=self._choice, call=number, call_id=call_id, name=name, arguments=text
        )

    def _fragments(self, raw: RawEvent, current: _Streamed, call: dict[str, Any]) -> None:
        pieces: list[str] = []
        args = current.args
        in_order = args.in_order
        if isinstance(call.get("args"), dict):
            current.had_args = True
            pieces += [args.put([key], value) for key, value in call["args"].items()]
        partial = call.get("partialArgs")
        for arg in partial if isinstance(partial, list) else ():
            path = parse_path(arg.get("jsonPath")) if isinstance(arg, dict) else None
            found, value = fragment_value(arg) if path is not None else (False, None)
            if path is None or not found:
                self._it.note(
                    raw,
                    "partial_args_path",
                    "warning",
                    f"a partialArgs fragment without a JSON path and a value: {arg!r:.80}",
                )
                continue
            pieces.append(args.put(path, value, arg.get("willContinue") is True))
        if in_order and not args.in_order:
            self._it.note(
                raw,
                "partial_args_order",
                "warning",
                "a partialArgs fragment goes back to a value already written: the streamed "
                "argument text stops here; the call's arguments are the whole object",
            )
        self._args(raw, current.call, "".join(pieces), current)

    def _finish(self, raw: RawEvent | None, current: _Streamed, *, unfinished: bool) -> None:
        self._open = None
        if unfinished:
            self._it.note(
                raw,
                "function_call_unfinished",
                "warning",
                f"function call {current.call} said willContinue, but its next part never came",
            )
        self._args(raw, current.call, current.args.close(current.had_args), current)
        args = current.args
        arguments = "".join(current.pieces) if args.in_order else args.text()
        self._it.end_call(
            raw,
            choice=self._choice,
            call=current.call,
            call_id=current.id,
            name=current.name,
            arguments=arguments,
        )

    def _args(
        self, raw: RawEvent | None, call: int, text: str, current: _Streamed | None = None
    ) -> None:
        if not text:
            return
        if current is not None:
            current.pieces.append(text)
        event: Event = ToolCallArgs(choice=self._choice, call=call, text=text)
        self._it.add(event, raw)
        if raw is None:
            event.t = self._it.last_t()


def _same(current: _Streamed, call: dict[str, Any]) -> bool:
    """A part goes on with the open call unless it names another call."""
    call_id, name = _names(call)
    return (call_id is None or current.id in (None, call_id)) and (
        name is None or current.name in (None, name)
    )


def _names(call: dict[str, Any]) -> tuple[str | None, str | None]:
    return _text(call.get("id")), _text(call.get("name"))


def _fill(current: _Streamed, call: dict[str, Any]) -> tuple[str | None, str | None]:
    call_id, name = _names(call)
    return current.id or call_id, current.name or name


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
