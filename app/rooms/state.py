"""What a presenter mirrors (docs/protocol.md, ``present``; docs/teaching.md): one small state,
checked field by field, that every viewer's player is brought to.

The state is whole in every message, so a viewer needs only the latest one: a late joiner, a
viewer who comes back from exploring alone, or one that missed a message all land in the same
place. Pure: no sockets, no clock (``advance`` takes the elapsed time).
"""

from __future__ import annotations

import math
from typing import Any

from ..protocol import ProtocolError

ACTIONS = ("play", "pause", "seek", "step", "speed", "token", "tool", "theme", "zoom")
SPEEDS: tuple[float | str, ...] = (0.25, 0.5, 1, 1.5, 2, 3, 5, 10, "max")
LANES = ("text", "reasoning", "refusal")
THEMES = ("light", "dark", "contrast")  # as the theme switch has them (static/js/share.js)
ZOOMS: tuple[float, ...] = (1, 1.25, 1.5, 2, 2.5, 3)  # the text sizes (static/js/zoom.js)
MAX_T_MS = 1e9  # about eleven days of media time
MAX_INDEX = 10_000_000  # events, tokens, streams, choices, calls, blocks
FIELDS = ("playing", "t", "cursor", "speed", "token", "tool", "theme", "zoom")


def bad(message: str) -> ProtocolError:
    return ProtocolError("bad_message", message)


def _index(value: Any, name: str, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INDEX:
        raise bad(f"{name} must be a whole number from 0 to {MAX_INDEX}")
    return value


def _object(value: Any, name: str, keys: tuple[str, ...]) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - set(keys):
        raise bad(f"{name} must be null or an object with {', '.join(keys)}")
    return value


def parse_state(value: Any) -> dict[str, Any]:
    """The state a ``present`` message carries, checked: every field present and of its type,
    nothing else. Raises ``ProtocolError`` (``bad_message``) naming the field."""
    if not isinstance(value, dict) or set(value) != set(FIELDS):
        raise bad(f"state must be an object with exactly {', '.join(FIELDS)}")
    playing = value["playing"]
    if not isinstance(playing, bool):
        raise bad("state.playing must be true or false")
    t = value["t"]
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        raise bad("state.t must be a number (ms)")
    if not 0 <= t <= MAX_T_MS:
        raise bad(f"state.t must be from 0 to {MAX_T_MS:g} ms")
    speed = value["speed"]
    if isinstance(speed, bool) or speed not in SPEEDS:
        raise bad(f"state.speed must be one of {', '.join(map(str, SPEEDS))}")
    theme = value["theme"]
    if theme is not None and theme not in THEMES:
        raise bad(f"state.theme must be null or one of {', '.join(THEMES)}")
    zoom = value["zoom"]
    if isinstance(zoom, bool) or zoom not in ZOOMS:
        raise bad(f"state.zoom must be one of {', '.join(map(str, ZOOMS))}")
    return {
        "playing": playing,
        "t": float(t),
        "cursor": _index(value["cursor"], "state.cursor", optional=True),
        "speed": speed,
        "token": _token(value["token"]),
        "tool": _tool(value["tool"]),
        "theme": theme,
        "zoom": zoom,
    }


def _token(value: Any) -> dict[str, Any] | None:
    token = _object(value, "state.token", ("lane", "choice", "token"))
    if token is None:
        return None
    lane = token.get("lane", "text")
    if lane not in LANES:
        raise bad(f"state.token.lane must be one of {', '.join(LANES)}")
    return {
        "lane": lane,
        "choice": _index(token.get("choice"), "state.token.choice"),
        "token": _index(token.get("token"), "state.token.token"),
    }


def _tool(value: Any) -> dict[str, Any] | None:
    tool = _object(value, "state.tool", ("stream", "choice", "call", "block"))
    if tool is None:
        return None
    if ("call" in tool) == ("block" in tool):
        raise bad("state.tool names either a call or a block")
    which = "call" if "call" in tool else "block"
    return {
        "stream": _index(tool.get("stream"), "state.tool.stream"),
        "choice": _index(tool.get("choice"), "state.tool.choice"),
        which: _index(tool[which], f"state.tool.{which}"),
    }


def parse_action(value: Any) -> str:
    if value not in ACTIONS:
        raise bad(f"action must be one of {', '.join(ACTIONS)}")
    return str(value)


def advance(state: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The state ``seconds`` after it was mirrored: a playing presenter has moved on (at
    their speed; at "max" speed nobody can tell, so the time stays)."""
    if not state.get("playing") or state.get("speed") == "max" or seconds <= 0:
        return state
    t = min(MAX_T_MS, state["t"] + seconds * 1000 * float(state["speed"]))
    return {**state, "t": t}
