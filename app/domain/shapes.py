"""Reading JSON values whose shape is not guaranteed: what a field holds, when it holds the
expected kind of value, else an empty one (so a wrong shape reads as absent, never raises)."""

from __future__ import annotations

from typing import Any


def as_object(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """The value when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []
