"""What every request reader uses: reading values of an unknown shape (never raising), the
parameters at their dialect's paths, a text cut to the shown length, arguments as JSON text."""

from __future__ import annotations

from typing import Any

import orjson

from ..shapes import as_list, as_object
from .model import MAX_TEXT, Message, Param, Part

__all__ = ["as_list", "as_object"]

MISSING = object()


def at(value: Any, path: str) -> Any:
    """``value`` at a dotted path, or ``MISSING`` where a step is not an object or not there."""
    for step in path.split("."):
        if not isinstance(value, dict) or step not in value:
            return MISSING
        value = value[step]
    return value


def params(body: dict[str, Any], fields: tuple[tuple[str, str], ...]) -> list[Param]:
    """The parameters a body sent, in the order of ``fields`` (common name, dotted path): a
    name is read once, from the first of its paths the body has."""
    found: list[Param] = []
    seen: set[str] = set()
    for name, path in fields:
        value = at(body, path)
        if value is MISSING or name in seen:
            continue
        seen.add(name)
        found.append(Param(name, path, value))
    return found


def text(value: Any) -> str | None:
    """A text as shown: a string cut at ``MAX_TEXT`` characters (the rest counted), any other
    JSON value as JSON text, None for null or absent."""
    if value is None or value is MISSING:
        return None
    if not isinstance(value, str):
        value = json_text(value)
    if len(value) > MAX_TEXT:
        return f"{value[:MAX_TEXT]}… ({len(value) - MAX_TEXT:,} more characters)"
    return value


def json_text(value: Any) -> str:
    """A JSON value as indented text (a call's arguments sent as an object)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # not reachable from parsed JSON; a value built by hand
        return repr(value)


def arguments(value: Any) -> str | None:
    """A call's arguments as JSON text: a string as sent (the text APIs send text), an object
    indented; None when none were sent."""
    if value is None or value is MISSING:
        return None
    return text(value)


def string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def other(what: Any) -> Part:
    """A part the panel names but does not show (an image, a document)."""
    return Part("other", text=str(what) if isinstance(what, str) and what else "content")


def message(role: Any, parts: list[Part]) -> Message:
    return Message(role if isinstance(role, str) and role else "?", tuple(parts))


def function_tool(tool: Any) -> tuple[str | None, str | None, str | None, Any]:
    """An OpenAI-style tool (``{"type": "function", "function": {name, description,
    parameters}}``), or any other type by its name: (name, type, description, schema)."""
    entry = as_object(tool)
    kind = string(entry.get("type"))
    function = as_object(entry.get("function"))
    source = function or entry
    return (
        string(source.get("name")),
        kind,
        string(source.get("description")),
        source.get("parameters"),
    )
