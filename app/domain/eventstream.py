"""Incremental decoder of AWS event-stream binary frames (``application/vnd.amazon.eventstream``,
docs/formats.md, "eventstream"), bytes in.

A frame (AWS calls it a message) is, big-endian::

    total length (4) | headers length (4) | prelude CRC32 (4) | headers | payload | message CRC32 (4)

The prelude CRC covers the first 8 bytes, the message CRC everything before it. A header is a
name length (1), the name (UTF-8), a type byte and a value: 0 true and 1 false (no value), 2
byte, 3 short, 4 int, 5 long (signed), 6 bytes and 7 string (each after a 2-byte length), 8
timestamp (milliseconds since the epoch, 8 bytes), 9 UUID (16 bytes).

Pure and incremental like the SSE decoder: feed network reads in any split, get back what each
read completed, in byte order: ``Frame`` s and ``Diagnostic`` s. It never raises on bad input.
A bad message CRC drops that frame (the prelude vouches for its length, so the next frame is
found); a bad prelude CRC means no length after it can be trusted, so the decoder says so and
reads nothing more of that input; a frame over the size cap is refused (skipped unbuffered);
input that ends inside a frame is said at ``close``. Everything before a problem is kept.
"""

from __future__ import annotations

import struct
import zlib

import msgspec

from .events import Diagnostic, RawEvent, Severity
from .eventstream_format import Headers, HeaderValue, frame_data, parse_headers

PRELUDE = 12
MIN_FRAME = 16  # a prelude and a message CRC
DEFAULT_MAX_FRAME = 16 * 1024 * 1024
_PRELUDE = struct.Struct(">III")
_CRC = struct.Struct(">I")
_HEADER_CACHE = 64  # distinct header blocks remembered (each event type repeats its own)
_PRELUDE_CACHE = 1024  # distinct preludes whose CRC checked (one per frame size that recurs)
# A frame up to this size is copied for its CRC (a copy costs less than a memoryview slice);
# a larger one is read through a view, never copied.
_COPIED = 64 * 1024

__all__ = ["DEFAULT_MAX_FRAME", "EventStreamDecoder", "Frame", "HeaderValue", "is_eventstream"]


class Frame(msgspec.Struct, gc=False):
    """One good frame. ``raw`` locates it (``line`` is its frame number, from 1) and names it:
    ``:event-type``, ``:exception-type`` for an exception, ``error`` for an error frame.
    ``headers`` is shared between frames with the same header bytes: read it, never change it.
    ``message_type`` is its ``:message-type`` (``event`` when it has none). ``data`` is what
    the frame says (``frame_data``); ``data_offset`` is where its payload starts."""

    raw: RawEvent
    headers: dict[str, HeaderValue]
    payload: bytes
    data_offset: int
    message_type: str  # event, exception or error
    data: bytes


def is_eventstream(head: bytes) -> bool:
    """Whether the data starts with an event-stream frame whose prelude CRC checks."""
    if len(head) < PRELUDE:
        return False
    total, headers_length, crc = _PRELUDE.unpack_from(head)
    return zlib.crc32(head[:8]) == crc and _lengths_fit(total, headers_length)


def _lengths_fit(total: int, headers_length: int) -> bool:
    return total >= MIN_FRAME and headers_length <= total - MIN_FRAME


class EventStreamDecoder:
    """Byte reads in, frames and diagnostics out. ``byte`` is the offset of the first byte fed."""

    def __init__(self, *, max_frame: int = DEFAULT_MAX_FRAME, byte: int = 0) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self._base = byte  # offset of _buf[0] in the input
        self._frames = 0  # frames begun so far (their numbers)
        self._skip = 0  # bytes of a refused frame still to come
        self._refused_at = 0  # where that frame starts
        self._stopped = False
        self._headers: dict[bytes, Headers] = {}
        self._preludes: set[bytes] = set()  # preludes (all 12 bytes) whose CRC checked
        self._need = PRELUDE  # bytes the next frame needs before it can be read

    def feed(self, chunk: bytes, t: float | None = None) -> list[Frame | Diagnostic]:
        out: list[Frame | Diagnostic] = []
        if self._stopped or not chunk:
            return out
        if self._skip:
            dropped = min(self._skip, len(chunk))
            self._skip -= dropped
            self._base += dropped
            chunk = chunk[dropped:]
        buf = self._buf
        buf += chunk
        if len(buf) < self._need:  # the frame under way is not all here yet: nothing to read
            return out
        read = self._read_frames(bytes(buf), t, out)
        if read:
            del buf[:read]
            self._base += read
        return out

    def close(self, t: float | None = None) -> list[Frame | Diagnostic]:
        """End of input: a frame cut short is said, with what arrived of it."""
        out: list[Frame | Diagnostic] = []
        if self._stopped:
            return out
        number = self._frames + 1
        if self._skip:
            message = (
                f"the input ends inside frame {self._frames} at byte {self._refused_at} "
                f"(refused as too large), {self._skip} bytes before its end"
            )
            out.append(self._note("eventstream_truncated", message, self._frames, self._refused_at))
        elif len(self._buf) >= PRELUDE:
            total = _PRELUDE.unpack_from(self._buf)[0]
            out.append(
                self._note(
                    "eventstream_truncated",
                    f"the input ends inside frame {number} at byte {self._base}: "
                    f"{len(self._buf)} of its {total} bytes arrived; it was not read",
                    number,
                    self._base,
                )
            )
        elif self._buf:
            out.append(
                self._note(
                    "eventstream_truncated",
                    f"the input ends inside the 12-byte prelude of frame {number} at byte "
                    f"{self._base} ({len(self._buf)} bytes arrived); it was not read",
                    number,
                    self._base,
                )
            )
        self._base += len(self._buf)
        self._buf.clear()
        self._skip, self._need = 0, PRELUDE
        return out

    # ----------------------------------------------------------------- framing
    def _read_frames(self, data: bytes, t: float | None, out: list[Frame | Diagnostic]) -> int:
        """Read the whole frames at the start of ``data`` (the buffer, as bytes: its slices
        are the payloads); returns how many bytes were read. The frame count and the base
        offset are held in locals (this runs per frame) and stored before any method that
        reads them. A prelude whose 12 bytes were seen with a good CRC is not checked again:
        the same bytes have the same CRC (frames of one size repeat their prelude)."""
        size, pos, base, frames = len(data), 0, self._base, self._frames
        unpack, crc32, known, cap = _PRELUDE.unpack_from, zlib.crc32, self._headers, self.max_frame
        checked, sent_crc = self._preludes, _CRC.unpack_from
        with memoryview(data) as view:
            while size - pos >= PRELUDE:
                prelude = data[pos : pos + PRELUDE]
                total, headers_length, crc = unpack(prelude)
                if prelude not in checked:
                    if (  # _lengths_fit, inlined
                        crc32(prelude[:8]) != crc
                        or total < MIN_FRAME
                        or headers_length > total - MIN_FRAME
                    ):
                        self._frames = frames
                        out.append(self._bad_prelude(prelude, pos, total, headers_length, crc))
                        return size
                    if len(checked) < _PRELUDE_CACHE:
                        checked.add(prelude)
                end = pos + total
                if end > size and total <= cap:
                    self._frames, self._need = frames, total  # counted when it is all here
                    return pos
                frames += 1
                at = base + pos
                if total > cap:
                    self._frames, self._refused_at = frames, at
                    out.append(self._too_large(total, at))
                    if end > size:
                        self._skip, self._need = end - size, PRELUDE
                        return size
                elif (
                    crc32(data[pos : end - 4] if total <= _COPIED else view[pos : end - 4])
                    != sent_crc(data, end - 4)[0]
                ):
                    self._frames = frames
                    sent = sent_crc(data, end - 4)[0]
                    out.append(self._bad_crc(at, total, sent, crc32(view[pos : end - 4])))
                else:  # a whole, good frame (this runs per frame)
                    start = pos + PRELUDE + headers_length
                    header_bytes = data[pos + PRELUDE : start]
                    headers = known.get(header_bytes)
                    if headers is None:
                        self._frames = frames
                        headers = self._parse(header_bytes, at, out)
                    raw = RawEvent(-1, frames, at, at + total, t, "event", headers.name)
                    payload, kind = data[start : end - 4], headers.message_type
                    said = frame_data(headers.values, payload, kind) if kind == "error" else payload
                    out.append(Frame(raw, headers.values, payload, base + start, kind, said))
                pos = end
        self._frames, self._need = frames, PRELUDE
        return pos

    def _bad_prelude(
        self, prelude: bytes, pos: int, total: int, headers_length: int, crc: int
    ) -> Diagnostic:
        """No length from here on can be trusted: the reading of this input stops."""
        self._stopped = True
        number, at = self._frames + 1, self._base + pos
        computed = zlib.crc32(prelude[:8])
        if computed != crc:
            message = (
                f"frame {number} at byte {at}: the prelude CRC does not match (0x{crc:08x} "
                f"sent, 0x{computed:08x} computed), so its lengths cannot be trusted and "
                "nothing from here on was read"
            )
            return self._note("eventstream_prelude_crc", message, number, at)
        message = (
            f"frame {number} at byte {at}: impossible lengths (total {total}, headers "
            f"{headers_length}), so nothing from here on was read"
        )
        return self._note("eventstream_frame_length", message, number, at)

    def _too_large(self, total: int, at: int) -> Diagnostic:
        return self._note(
            "eventstream_frame_too_large",
            f"frame {self._frames} at byte {at} is {total:,} bytes, over the "
            f"{self.max_frame:,}-byte cap; it was skipped",
            self._frames,
            at,
        )

    def _bad_crc(self, at: int, total: int, sent: int, computed: int) -> Diagnostic:
        message = (
            f"frame {self._frames} at byte {at} ({total} bytes): the message CRC does not "
            f"match (0x{sent:08x} sent, 0x{computed:08x} computed); the damaged frame was "
            "skipped, the frames after it are read"
        )
        return self._note("eventstream_message_crc", message, self._frames, at)

    def _parse(self, data: bytes, at: int, out: list[Frame | Diagnostic]) -> Headers:
        """Headers that cannot be read are said before their frame, which is read with the
        headers that could be."""
        number = self._frames
        values, problems = parse_headers(data)
        for problem in problems:
            where = at + PRELUDE + problem.offset
            message = f"frame {number}: {problem.message} (byte {where})"
            out.append(self._note(problem.code, message, number, where, problem.severity))
        headers = Headers.of(values)
        if not problems and len(self._headers) < _HEADER_CACHE:
            self._headers[data] = headers
        return headers

    def _note(
        self, code: str, message: str, number: int, at: int, severity: Severity = "error"
    ) -> Diagnostic:
        return Diagnostic(code=code, severity=severity, message=message, line=number, byte=at)
