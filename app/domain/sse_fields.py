"""The SSE decoder's reading of one line (sse.py): its field (``data``, ``event``, ``id``,
``retry``), a comment, or the blank line that dispatches an event, as the WHATWG "event stream
interpretation" says; problems as diagnostics with their line and byte (the state is the
decoder's)."""

from __future__ import annotations

from .events import Diagnostic, RawEvent
from .sse_runs import SSEItem

_FIELDS = (b"data", b"event", b"id", b"retry")


class FieldReading:
    """``SSEDecoder``'s line-by-line reading: ``_process_line`` and what it uses."""

    max_line: int
    emitted: int
    diagnostics: list[Diagnostic]
    last_event_id: str | None
    _marks: list[int]
    _byte: int
    _line: int
    _byte_skipped: int
    _held: list[SSEItem]
    _last: RawEvent | None
    _data: list[bytes] | None
    _data_offset: int
    _event: str | None
    _ev_line: int
    _ev_byte: int

    def _skip_overlong(self, term_len: int) -> None:
        raise NotImplementedError

    def _emit(self, out: list[SSEItem], item: SSEItem) -> None:
        self.emitted += 1
        out.append(item)

    def _release(self, out: list[SSEItem]) -> None:
        """Comments held while an event was pending come after it."""
        if self._held:
            self.emitted += len(self._held)
            out.extend(self._held)
            self._held = []

    def _reset_event(self) -> None:
        self._data = None
        self._data_offset = 0
        self._event = None
        self._ev_line = 0
        self._ev_byte = -1

    def _process_line(self, line: bytes, term: int, t: float | None, out: list[SSEItem]) -> None:
        start = self._byte
        lineno = self._line
        self._byte = start + len(line) + term
        self._line = lineno + 1
        if len(line) > self.max_line:
            self._byte, self._line = start, lineno
            self._byte_skipped = len(line)
            self._skip_overlong(term)
            return
        if not line:
            if self._data is not None:
                self._dispatch(t, out)
            else:
                self._reset_event()
            self._release(out)
            return
        if line[0] == 0x3A:  # ":" comment
            raw = RawEvent(-1, lineno, start, self._byte, t, "comment")
            text = line[2:] if line[1:2] == b" " else line[1:]  # one space, as for values
            item = SSEItem(raw, comment=self._text(text, start + len(line) - len(text)))
            self._last = raw  # the LF of a CRLF split across reads still belongs to it
            if self._ev_byte >= 0:
                self._held.append(item)  # inside an event: after it, to keep byte order
            else:
                self._emit(out, item)
            return
        if self._ev_byte < 0:
            self._ev_byte, self._ev_line = start, lineno
        colon = line.find(b":")
        if colon < 0:
            name, value = line, b""
        else:
            name, value = line[:colon], line[colon + 1 :]
            if value[:1] == b" ":
                value = value[1:]
            if name not in _FIELDS and name.strip() in _FIELDS:
                self._note(
                    "field_whitespace",
                    "warning",
                    "a field name has spaces around it; read anyway (strict clients drop it)",
                    lineno,
                    start,
                )
                name = name.strip()
        if name == b"data":
            if self._data is None:
                self._data = [value]
                self._data_offset = self._byte - term - len(value)
            else:
                self._data.append(value)
        elif name == b"event":
            self._event = self._text(value, start + len(line) - len(value))
        elif name == b"id":
            if b"\x00" not in value:
                self.last_event_id = self._text(value, start + len(line) - len(value))
        elif name != b"retry":
            self._note(
                "unknown_field",
                "info",
                f"line is not an SSE field ({self._text(name[:40], start)!r}...); ignored",
                lineno,
                start,
            )

    def _dispatch(self, t: float | None, out: list[SSEItem]) -> None:
        data = self._data
        assert data is not None
        payload = data[0] if len(data) == 1 else b"\n".join(data)
        raw = RawEvent(
            -1,
            self._ev_line,
            self._ev_byte,
            self._byte,
            t,
            "event",
            self._event,
            self.last_event_id,
        )
        self._last = raw
        self._emit(out, SSEItem(raw, data=payload, data_offset=self._data_offset))
        self._reset_event()

    def _text(self, value: bytes, at: int) -> str:
        try:
            return value.decode()
        except UnicodeDecodeError as exc:
            self._note(
                "invalid_utf8",
                "warning",
                f"byte 0x{value[exc.start]:02x} is not valid UTF-8; replaced with U+FFFD",
                self._line - 1,
                at + exc.start,
            )
            return value.decode(errors="replace")

    def _note(
        self,
        code: str,
        severity: str,
        message: str,
        line: int | None = None,
        byte: int | None = None,
    ) -> None:
        self._marks.append(self.emitted)
        self.diagnostics.append(
            Diagnostic(
                code=code,
                severity=severity,  # type: ignore[arg-type]
                message=message,
                line=self._line - 1 if line is None else line,
                byte=self._byte if byte is None else byte,
            )
        )
