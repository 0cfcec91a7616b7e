"""JSON decoding that never raises, and says what was wrong.

The hot path is ``orjson.loads``. Only a payload orjson refuses comes here: we then decode it
with the standard library, which accepts ``NaN``/``Infinity`` and lone surrogate escapes, and
turn each oddity into a ``Problem`` instead of an exception:

* invalid UTF-8 bytes are replaced with U+FFFD (the position of the first one is reported);
* ``NaN``, ``Infinity`` and numbers that overflow a double become ``null``;
* integers longer than 4,000 digits are kept as text (Python refuses to convert them);
* lone surrogates (``"\\ud800"``) are replaced with U+FFFD: they cannot be encoded later;
* nesting deeper than ``MAX_DEPTH`` (200) levels is refused without recursion (stdlib ``json``
  would raise ``RecursionError``, orjson cannot write past 254 levels, Python's ``==`` fails
  near 1,000).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

MAX_INT_DIGITS = 4000
# orjson reads 1,024 levels but writes only 254, and Python's repr and == stop near 1,000
# frames: a value deeper than this is refused as it is read, so nothing later trips on it.
MAX_DEPTH = 200
_SURROGATE = re.compile("[\ud800-\udfff]")
_NESTING = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def too_deep(data: bytes | str) -> bool:
    """Whether JSON text nests deeper than ``MAX_DEPTH``: cheap unless it has that many
    brackets at all, then one scan that skips strings."""
    if isinstance(data, str):
        data = data.encode(errors="replace")
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    for match in _NESTING.finditer(data):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif token in (b"]", b"}"):
            depth -= 1
    return False


def deep_problem(pos: int | None = None) -> Problem:
    return Problem(
        "json_too_deep", "error", f"JSON nested more than {MAX_DEPTH} levels deep; not read", pos
    )


@dataclass(slots=True, frozen=True)
class Problem:
    code: str
    severity: str
    message: str
    pos: int | None = None  # character (or byte, for invalid_utf8) offset in the payload


@dataclass(slots=True)
class Decoded:
    value: Any
    ok: bool
    problems: list[Problem]


def decode_lenient(data: bytes | str) -> Decoded:
    """Decode a payload orjson refused. ``ok`` is False when nothing usable came out."""
    problems: list[Problem] = []
    text = _as_text(data, problems)
    if too_deep(text):
        problems.append(deep_problem())
        return Decoded(None, False, problems)
    try:
        return Decoded(orjson.loads(text), True, problems)
    except orjson.JSONDecodeError:
        pass
    return _decode_stdlib(text, problems)


def decode_document(data: bytes) -> Decoded:
    """A whole JSON document (a HAR file, a request body): strict JSON first, the lenient
    decoder only for what orjson refuses; nesting past ``MAX_DEPTH`` is refused unread."""
    if too_deep(data):
        return Decoded(None, False, [deep_problem()])
    try:
        return Decoded(orjson.loads(data), True, [])
    except orjson.JSONDecodeError:
        return decode_lenient(data)


def _as_text(data: bytes | str, problems: list[Problem]) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        problems.append(
            Problem(
                "invalid_utf8",
                "warning",
                f"byte 0x{data[exc.start]:02x} is not valid UTF-8; replaced with U+FFFD",
                exc.start,
            )
        )
        return data.decode(errors="replace")


def _decode_stdlib(text: str, problems: list[Problem]) -> Decoded:
    def constant(name: str) -> None:
        problems.append(
            Problem("json_nonfinite", "warning", f"{name} is not valid JSON; read as null")
        )

    def number(literal: str) -> float | None:
        try:
            value = float(literal)
        except OverflowError:
            value = float("inf")
        if value in (float("inf"), float("-inf")):
            problems.append(
                Problem(
                    "json_number_range",
                    "warning",
                    f"number {literal[:40]} is out of range for a double; read as null",
                )
            )
            return None
        return value

    def integer(literal: str) -> int | float | str | None:
        if len(literal) > MAX_INT_DIGITS:
            problems.append(
                Problem(
                    "json_number_range",
                    "warning",
                    f"integer of {len(literal)} digits kept as text",
                )
            )
            return literal
        value = int(literal)
        if -(2**63) <= value < 2**64:
            return value
        return number(literal)  # beyond 64 bits, as orjson reads it: a double, or null

    try:
        value = json.loads(text, parse_constant=constant, parse_float=number, parse_int=integer)
    except json.JSONDecodeError as exc:
        problems.append(Problem("json_error", "error", _describe(exc, text), exc.pos))
        return Decoded(None, False, problems)
    except RecursionError:
        problems.append(Problem("json_too_deep", "error", "JSON nested too deeply; not read"))
        return Decoded(None, False, problems)
    if _has_surrogates(text):
        value = _replace_surrogates(value, problems)
    return Decoded(value, True, problems)


def _describe(exc: json.JSONDecodeError, text: str) -> str:
    message = exc.msg[0].lower() + exc.msg[1:]
    if not message.endswith(" at"):
        message += " at"
    where = f"line {exc.lineno} column {exc.colno} (char {exc.pos})"
    if not text.strip():
        return "empty payload, not JSON"
    if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated"):
        return f"incomplete JSON: {message} {where}"
    return f"invalid JSON: {message} {where}"


def _has_surrogates(text: str) -> bool:
    return "\\u" in text.lower() and re.search(r"\\u[dD][89a-fA-F]", text) is not None


def _replace_surrogates(value: Any, problems: list[Problem]) -> Any:
    """Walk the value without recursion and replace lone surrogates with U+FFFD."""
    found = False

    def fix(s: str) -> str:
        nonlocal found
        if _SURROGATE.search(s):
            found = True
            return _SURROGATE.sub("\ufffd", s)
        return s

    root = [value]
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = fix(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        elif isinstance(node, dict):
            for key in list(node):
                item = node[key]
                new_key = fix(key)
                if new_key != key:
                    del node[key]
                if isinstance(item, str):
                    item = fix(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
                node[new_key] = item
    if found:
        problems.append(
            Problem("lone_surrogate", "warning", "lone UTF-16 surrogate replaced with U+FFFD")
        )
    return root[0]


@dataclass(slots=True, frozen=True)
class ArgumentsCheck:
    """What a tool call's complete argument string is: valid, empty or invalid (and where)."""

    status: str
    error: str | None = None
    pos: int | None = None
    incomplete: bool = False


def check_arguments(text: str) -> ArgumentsCheck:
    if not text.strip():
        return ArgumentsCheck("empty")
    try:
        orjson.loads(text)
        return ArgumentsCheck("valid")
    except orjson.JSONDecodeError:
        pass
    try:
        json.loads(text)
        return ArgumentsCheck("valid")
    except json.JSONDecodeError as exc:
        incomplete = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated")
        return ArgumentsCheck("invalid", _describe(exc, text), exc.pos, incomplete)
    except RecursionError:
        return ArgumentsCheck("invalid", "invalid JSON: nested too deeply", None, False)
