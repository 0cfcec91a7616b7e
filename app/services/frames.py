"""Websocket frames built by the server itself, so that a message shared by many viewers is
framed (and compressed) once instead of once per viewer.

simple-websocket (through wsproto) accepts permessage-deflate whenever the page offers it, and
then compresses every message for every connection: a 1 MiB replay costs each viewer ~10 ms of
server CPU. Here a shared message is deflated once, on its own (a fresh compressor, ended with
a sync flush and without its ``00 00 ff ff`` tail, RFC 7692 section 7.2.1), so it decodes
correctly whatever the page's decompressor has seen before. Frames we build are never fed to
wsproto's compressor, so its own messages (none after the session starts, except the close
handshake's control frames) and ours cannot disagree about the compression window: an
uncompressed message (RSV1 clear) is allowed at any time and leaves the window alone, and the
messages we deflate refer to nothing before them. Server frames are never masked.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

TEXT = 0x81  # FIN + text opcode
RSV1 = 0x40  # "this message is deflated"
DEFLATE_FROM = 1024  # smaller messages are not worth it
TAIL = b"\x00\x00\xff\xff"
# zlib's fastest level: a 100k-chunk replay with logprobs (56 MB of events) deflates in 0.2 s
# instead of 0.66 s at the default level 6, for 18 MB sent instead of 13 MB (bench_parse.py,
# "player" rows: the encoding must not cost more than reading the capture).
LEVEL = 1


def frame(payload: bytes, *, deflated: bool = False) -> bytes:
    """One unmasked text frame holding a whole message."""
    first = TEXT | (RSV1 if deflated else 0)
    size = len(payload)
    if size < 126:
        head = bytes([first, size])
    elif size < 65536:
        head = bytes([first, 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([first, 127]) + size.to_bytes(8, "big")
    return head + payload


def deflate(payload: bytes) -> bytes:
    """The message compressed on its own, as permessage-deflate sends it."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    data = compressor.compress(payload) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return data[: -len(TAIL)] if data.endswith(TAIL) else data


@dataclass(frozen=True)
class Prepared:
    """A message framed once for every viewer: plain, and deflated when that saves bytes."""

    plain: bytes
    deflated: bytes | None

    @classmethod
    def of(cls, text: str | bytes) -> Prepared:
        """A message, as text or as its UTF-8 bytes."""
        payload = text.encode() if isinstance(text, str) else text
        squeezed = deflate(payload) if len(payload) >= DEFLATE_FROM else None
        if squeezed is not None and len(squeezed) < len(payload):
            return cls(frame(payload), frame(squeezed, deflated=True))
        return cls(frame(payload), None)

    @property
    def payload(self) -> memoryview:
        """The message's UTF-8 bytes, without a copy (a document is written from them)."""
        size = self.plain[1] & 0x7F
        start = 2 if size < 126 else 4 if size == 126 else 10
        return memoryview(self.plain)[start:]

    @property
    def text(self) -> str:
        """The message itself (for tests and logs; the frames are what is sent)."""
        return str(self.payload, "utf-8")

    def weight(self) -> int:
        return len(self.plain) + (len(self.deflated) if self.deflated is not None else 0)

    def for_peer(self, can_inflate: bool) -> bytes:
        return self.deflated if (can_inflate and self.deflated is not None) else self.plain


def peer_inflates(ws: Any) -> bool:
    """Whether permessage-deflate was agreed with a full (15-bit) server window, which is what
    ``deflate`` produces. Anything else, or an unknown wsproto layout, gets plain frames."""
    connection = getattr(getattr(ws, "ws", None), "connection", None)
    extensions = getattr(getattr(connection, "_proto", None), "extensions", None) or []
    for extension in extensions:
        if getattr(extension, "name", None) == "permessage-deflate":
            enabled = getattr(extension, "enabled", lambda: False)()
            return bool(enabled) and getattr(extension, "server_max_window_bits", 0) == 15
    return False
