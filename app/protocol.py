"""The websocket wire protocol between the server and the page (``docs/protocol.md``).

Version 5, negotiated as the websocket subprotocol ``streamscope.v5`` and repeated in the first
message (``hello``). The message types are a closed set: ``SERVER_MESSAGES`` (server to page)
and ``CLIENT_MESSAGES`` (page to server). ``static/js/protocol.js`` mirrors both lists and the
version; ``tests/test_protocol.py`` fails when this module, the JS mirror and the doc disagree.

Every message is one JSON text frame ``{"type": ..., ...}``; ``encode`` is the only way the
server builds one, and ``decode_client`` the only way it reads one. Each server message's
fields are typed once, in its shape (``SERVER_SHAPES``); docs/protocol.md's field tables are
written from them (scripts/protocol_tables.py).
"""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect
import orjson

VERSION = 5
SUBPROTOCOL = f"streamscope.v{VERSION}"

JSON = dict[str, Any]


# ---------------------------------------------------------------- server messages' shapes
# Each server message's fields, typed once: ``encode`` refuses a field a shape does not name
# and one it requires that is missing; tests/test_protocol.py checks the types of the doc's
# examples and of the messages a replay and a live run send, and that docs/protocol.md's field
# tables are these (``field_rows``; ``python scripts/protocol_tables.py`` writes them). A field
# with a default may be left out.
class Hello(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """First message: protocol version and limits."""

    version: int
    server: str
    max_message: int
    max_raw_request: int


class RequestInfo(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A stream's request, read into one view for every dialect (app/domain/requests/):
    ``params`` each ``{name, field, value}``, ``tools`` each ``{name, kind, description,
    schema}``, ``messages`` each ``{role, parts}`` with parts ``{kind, text, name, id,
    arguments, error}`` (docs/timeline.md, "The request")."""

    method: str | None
    url: str | None
    source: str  # recording, har or curl
    dialect: str | None
    params: list[JSON]
    tools: list[JSON]
    messages: list[JSON]
    note: str | None


class StreamInfo(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One stream of a ``capture`` message."""

    index: int
    origin: str
    timed: bool
    timing: str  # recorded, synthesized, har or none (Stream.timing)
    raw: int
    events: int
    request: RequestInfo | None  # None when the capture has no request
    end_reason: str | None
    dialect: str | None
    dialect_reason: str | None
    usage_help: dict[str, str]
    labels: JSON


class Capture(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What is being played: format, streams, capture-level diagnostics."""

    title: str
    source: JSON
    format: str | None
    compression: str | None
    pace_ms: float
    stall_ms: float
    streams: list[StreamInfo]
    diagnostics: list[JSON]
    live: bool = False


class RawMeta(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A batch of raw-event positions and times, columnar (``RAW_COLUMNS``)."""

    stream: int
    start: int
    t: list[float | None]
    line: list[int]
    kind: list[int]
    choices: list[int]
    event: list[str | None]


class Events(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A batch of timeline events (docs/timeline.md)."""

    stream: int
    events: list[JSON]


class Summary(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A finished stream: what ``inspect --json`` says of it."""

    stream: int
    index: int
    origin: str
    end_reason: str | None
    end_error: str | None
    dialect: str | None
    dialect_reason: str | None
    completion: Any
    normalized: JSON | None
    metrics: JSON
    tool_calls: list[JSON]
    payloads: list[JSON]
    errors: list[JSON]
    diagnostics: list[JSON]
    events: int
    raw_events: int


class FindingInfo(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One finding of a ``findings`` message: a rule of the catalogue the stream breaks
    (app/domain/findings/model.py), where (``raw``: its raw event, null for the whole stream),
    and the link to the rule's entry (``doc``: ``/rules#<rule>``)."""

    rule: str
    severity: str  # error, warning or info
    title: str
    message: str
    raw: int | None
    t: float | None
    line: int | None
    byte: int | None
    count: int
    doc: str


class Findings(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A stream's findings, the whole list (each message replaces the last), with how many
    of each severity; ``final`` once the stream is complete."""

    stream: int
    findings: list[FindingInfo]
    counts: dict[str, int]
    final: bool


class Raw(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Raw event texts, in answer to ``raw_request``."""

    stream: int
    start: int
    items: list[JSON]


class Status(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A live run's state (``STATUS_STATES``); ``started`` names the recording."""

    state: str
    message: str
    capture: str | None = None
    url: str | None = None
    delete_token: str | None = None


class End(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Everything has been sent (reason: complete, done, error, cancelled, disconnected,
    too_large)."""

    reason: str
    error: str | None = None


class Error(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A protocol or source error: code and message."""

    code: str
    message: str


class Room(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Joined a presenter room: its source, your role, its current state."""

    room: str
    source: JSON
    presenter: bool
    viewer_url: str
    seq: int
    action: str | None
    state: JSON | None


class Mirror(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A presenter room's new state (each one whole), numbered by ``seq``."""

    room: str
    seq: int
    action: str
    state: JSON


SERVER_SHAPES: dict[str, type[msgspec.Struct]] = {
    "hello": Hello,
    "capture": Capture,
    "raw_meta": RawMeta,
    "events": Events,
    "summary": Summary,
    "findings": Findings,
    "raw": Raw,
    "status": Status,
    "end": End,
    "error": Error,
    "room": Room,
    "mirror": Mirror,
}
SERVER_MESSAGES: tuple[str, ...] = tuple(SERVER_SHAPES)


def _fields(shape: type[msgspec.Struct]) -> tuple[msgspec.inspect.Field, ...]:
    info = msgspec.inspect.type_info(shape)
    assert isinstance(info, msgspec.inspect.StructType)
    return info.fields


def _names(shape: type[msgspec.Struct]) -> tuple[frozenset[str], frozenset[str]]:
    """A shape's field names, and those it requires (no default)."""
    fields = _fields(shape)
    return frozenset(f.name for f in fields), frozenset(f.name for f in fields if f.required)


_FIELD_NAMES = {name: _names(shape) for name, shape in SERVER_SHAPES.items()}


def field_rows(shape: type[msgspec.Struct]) -> list[str]:
    """A shape's fields as the rows of a Markdown table (docs/protocol.md): name, JSON type,
    whether it is always there."""
    rows = ["| field | type | always |", "|---|---|---|"]
    for f in _fields(shape):
        rows.append(f"| `{f.name}` | {_type_name(f.type)} | {'yes' if f.required else 'no'} |")
    return rows


def _type_name(t: msgspec.inspect.Type) -> str:
    i = msgspec.inspect
    simple = {
        i.IntType: "integer",
        i.FloatType: "number",
        i.StrType: "string",
        i.BoolType: "boolean",
    }
    if type(t) in simple:
        return simple[type(t)]
    if isinstance(t, i.AnyType):
        return "any"
    if isinstance(t, i.DictType):
        return "object"
    if isinstance(t, i.StructType):
        return f"`{t.cls.__name__}`"
    if isinstance(t, i.ListType):
        return f"list of {_type_name(t.item_type)}"
    if isinstance(t, i.UnionType):
        named = [_type_name(u) for u in t.types if not isinstance(u, i.NoneType)]
        return " or ".join(named) + (" or null" if t.includes_none else "")
    raise TypeError(f"no JSON name for {t!r}")


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
    names = _FIELD_NAMES.get(message_type)
    if names is None:
        raise ValueError(f"not a server message type: {message_type}")
    allowed, required = names
    if not (required <= fields.keys() <= allowed):
        extra, missing = sorted(fields.keys() - allowed), sorted(required - fields.keys())
        raise ValueError(f"{message_type}: fields {extra} not in its shape, {missing} missing")
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
