"""A plain, whole-buffer SSE decoder: the yardstick for the incremental one in app/domain/sse.py.

It follows the WHATWG "event stream interpretation" written as directly as possible (the whole
buffer split into lines at CRLF, CR or LF, then each line read in turn), plus the leniencies
docs/formats.md lists: an unterminated last line and event are read, a field name with spaces
around it is read. Comments strip one leading space, as field values do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BOM = b"\xef\xbb\xbf"
FIELDS = (b"data", b"event", b"id", b"retry")


@dataclass
class Decoded:
    events: list[tuple[bytes, str | None, str | None]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    fields_only: int = 0  # events of event/id/retry fields and no data (blank-line ended)


def reference_decode(data: bytes) -> Decoded:
    """Events as ``(data, event name, last event id)`` and comment texts, each in order."""
    out = Decoded()
    if data.startswith(BOM):
        data = data[len(BOM) :]
    lines = re.split(rb"\r\n|\r|\n", data)
    if lines[-1] == b"":
        lines.pop()  # the buffer ended with a line ending
    data_lines: list[bytes] | None = None
    event: str | None = None
    last_id: str | None = None
    meta = False
    for line in lines:
        if line == b"":
            if data_lines is not None:
                out.events.append((b"\n".join(data_lines), event, last_id))
            elif meta:
                out.fields_only += 1
            data_lines, event, meta = None, None, False
            continue
        if line.startswith(b":"):
            text = line[1:]
            out.comments.append(
                (text[1:] if text.startswith(b" ") else text).decode("utf-8", "replace")
            )
            continue
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        name = name.strip() if name.strip() in FIELDS else name
        meta = meta or name in (b"event", b"id", b"retry")
        if name == b"data":
            data_lines = [*(data_lines or []), value]
        elif name == b"event":
            event = value.decode("utf-8", "replace")
        elif name == b"id" and b"\x00" not in value:
            last_id = value.decode("utf-8", "replace")
    if data_lines is not None:
        out.events.append((b"\n".join(data_lines), event, last_id))
    return out


def incremental_decode(pieces: list[bytes]) -> Decoded:
    """The same, from the product's decoder fed one read per piece."""
    from app.domain.sse import SSEDecoder

    decoder = SSEDecoder()
    items = []
    for piece in pieces:
        items += decoder.feed(piece)
    items += decoder.close()
    out = Decoded()
    for item in items:
        if item.data is not None:
            out.events.append((item.data, item.raw.event, item.raw.id))
        elif item.raw.kind == "other":
            out.fields_only += 1
        else:
            out.comments.append(item.comment or "")
    return out
