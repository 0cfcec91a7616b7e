"""Building AWS event-stream frames by hand for the tests (the encoder is the app's own, used
for scrubbing; tests/test_eventstream.py checks botocore decodes what it writes)."""

from __future__ import annotations

from typing import Any

import orjson

from app.domain.eventstream_format import encode_frame, encode_header


def frame(name: str, payload: Any, kind: str = "event") -> bytes:
    """A Bedrock frame: an event (``:event-type``) or an exception (``:exception-type``)."""
    type_header = ":exception-type" if kind == "exception" else ":event-type"
    headers = (
        encode_header(type_header, name)
        + encode_header(":content-type", "application/json")
        + encode_header(":message-type", kind)
    )
    return encode_frame(headers, payload if isinstance(payload, bytes) else orjson.dumps(payload))


def frames(*events: tuple[str, Any]) -> bytes:
    return b"".join(frame(name, payload) for name, payload in events)
