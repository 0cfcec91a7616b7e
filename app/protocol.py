"""The websocket wire protocol between the server and the page (``docs/protocol.md``).

Version 3, negotiated as the websocket subprotocol ``streamscope.v3`` and repeated in the first
message (``hello``). The message types are a closed set: ``SERVER_MESSAGES`` (server to page)
and ``CLIENT_MESSAGES`` (page to server). ``static/js/protocol.js`` mirrors both lists and the
version; ``tests/test_protocol.py`` fails when this module, the JS mirror and the doc disagree.

Every message is one JSON text frame ``{"type": ..., ...}``; ``encode`` is the only way the
server builds one, and ``decode_client`` the only way it reads one.
"""

from __future__ import annotations

from typing import Any

import orjson

VERSION = 3
SUBPROTOCOL = f"streamscope.v{VERSION}"

SERVER_MESSAGES: tuple[str, ...] = (
    "hello",  # first message: protocol version and limits
    "capture",  # what is being played: format, streams, capture-level diagnostics
    "raw_meta",  # a batch of raw-event positions and times, columnar
    "events",  # a batch of timeline events (docs/timeline.md)
    "summary",  # a finished stream: assembled completion, metrics, tool calls, errors
    "raw",  # raw event texts, in answer to raw_request
    "status",  # a live run's state (STATUS_STATES)
    "end",  # everything has been sent (reason: complete, done, error, cancelled, disconnected, too_large)
    "error",  # a protocol or source error: code and message
    "room",  # joined a presenter room: its source, your role, its current state
    "mirror",  # a presenter room's new state (each one whole), numbered by seq
)
CLIENT_MESSAGES: tuple[str, ...] = (
    "open",  # play a source: {"demo": name} | {"capture": id}
    "start",  # start a live run: base_url, api key (or the name of a server variable), body
    "raw_request",  # raw texts for raw events [start, start + count)
    "stop",  # stop a live run
    "join",  # join a presenter room (with the presenter's key to present)
    "present",  # the presenter's action and state, with the key (checked per message)
)
# A ``status`` message's ``state``: the run's own (started, to the page that started it,
# connecting, retrying, streaming), and how a viewer on another process follows it
# (docs/scaling.md): ``fallback`` from the stored recording while Redis is away, ``live`` on
# the live edge again once it is back (a presenter room's pages are told the same).
STATUS_STATES: tuple[str, ...] = (
    "started",
    "connecting",
    "retrying",
    "streaming",
    "fallback",
    "live",
)
# A ``raw_meta`` message's columns, one value per raw event in each (wire.py writes them).
RAW_COLUMNS: tuple[str, ...] = ("t", "line", "kind", "choices", "event")
MAX_RAW_REQUEST = 500  # raw texts in one ``raw`` message: asked for, sent, or in a document
UNTIMED_PACE_MS = 40.0  # a stream without timing plays one raw event every this many ms
DEFAULT_API = "chat"  # the API a ``start`` message without ``api`` speaks (app/live/apis.py)


class ProtocolError(ValueError):
    """A client message that breaks the protocol; ``code`` goes back in an ``error`` message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def encode(message_type: str, /, **fields: Any) -> str:
    return encode_bytes(message_type, **fields).decode()


def encode_bytes(message_type: str, /, **fields: Any) -> bytes:
    """``encode``'s message as UTF-8 bytes, as it is framed (no round trip through ``str``)."""
    if message_type not in SERVER_MESSAGES:
        raise ValueError(f"not a server message type: {message_type}")
    if message_type == "status" and fields.get("state") not in STATUS_STATES:
        raise ValueError(f"not a status state: {fields.get('state')}")
    return orjson.dumps({"type": message_type, **fields})


def whole_numbers(message: dict[str, Any], *names: str) -> tuple[int, ...] | None:
    """The named fields of a client message when each is a non-negative integer (not a
    bool), in that order; None when any is not."""
    values = tuple(message.get(name) for name in names)
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        return values  # type: ignore[return-value]  # every item checked just above
    return None


def decode_client(text: str | bytes) -> dict[str, Any]:
    try:
        message = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError("bad_message", f"not JSON: {exc}") from None
    if not isinstance(message, dict) or message.get("type") not in CLIENT_MESSAGES:
        raise ProtocolError("bad_message", "unknown message type")
    return message
