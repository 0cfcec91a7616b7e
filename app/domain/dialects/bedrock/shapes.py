"""What makes a payload an AWS Bedrock ConverseStream event (bedrock.py): the event names and
the fields each one's payload holds, the name taken from the frame or from boto3's
``{name: body}`` form (``unwrap``), exceptions by their ``...Exception`` names, and the small
readings of values the interpreter shares (a block's kind, an index as sent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import NAMED, SHAPED, Sniffed, nested

PADDING = "p"  # the field AWS pads every payload with (its length hides the content's)

# What each event's payload holds: enough to tell it from another API's event of that name.
_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "messageStart": lambda v: "role" in v,
    "contentBlockStart": lambda v: "contentBlockIndex" in v and "start" in v,
    "contentBlockDelta": lambda v: "contentBlockIndex" in v and "delta" in v,
    "contentBlockStop": lambda v: "contentBlockIndex" in v,
    "messageStop": lambda v: "stopReason" in v,
    "metadata": lambda v: nested(v, "usage", "inputTokens") is not None or "metrics" in v,
}


def unwrap(event: str | None, value: dict[str, Any]) -> tuple[str | None, Any]:
    """The event's name and body: from the frame, or from boto3's ``{name: body}`` form."""
    if event is None and len(value) == 1:
        name, body = next(iter(value.items()))
        if (name in _SHAPES or is_exception(name)) and isinstance(body, dict):
            return name, body
    return event, value


def kind_of(value: dict[str, Any]) -> str:
    """A block's kind: the key of its start or first delta (``text``, ``toolUse``, ...)."""
    return next((key for key in value if key != PADDING), "unknown")


def is_exception(name: str | None) -> bool:
    """AWS names every exception shape ``...Exception`` (``modelStreamErrorException``)."""
    return name is not None and name.endswith("Exception")


def block_index(value: Any) -> int | None:
    """A block or call index as sent, when it is a non-negative integer."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def sniff(event: str | None, value: dict[str, Any]) -> Sniffed | None:
    name, body = unwrap(event, value)
    if name is None or not isinstance(body, dict):
        return None
    how = "event" if event is not None else "key"
    sure = NAMED if event is not None else SHAPED  # an event header names it; a key only fits
    shape = _SHAPES.get(name)
    if shape is not None and shape(body):
        return sure, f"{how} {name}"
    if is_exception(name) and isinstance(body.get("message"), str):
        return sure, f"exception {name}"
    return None
