"""The SSE field decoder: complete lines in, ``SSEItem`` s out (the second half of sse.py's
decoder, after ``sse_lines.LineSplitter``; httpx-sse's ``SSEDecoder``).

Each line is a field (``data``, ``event``, ``id``, ``retry``), a comment, or the blank line
that dispatches an event, as the WHATWG "event stream interpretation" says; problems are
diagnostics with their line and byte. The position (``byte``, ``line``) of the next line is
kept here.

``lines`` reads many LF-terminated lines at once: the common events, a ``data:`` line (or an
``event:`` line and a ``data:`` line) then a blank line, with no event pending, in one step,
runs of them at once (sse_runs.py), exactly as ``line`` reads those lines one by one
(tests/test_fast_paths.py, tests/test_reading_runs.py); every other line goes through ``line``.
"""

from __future__ import annotations

from .bytestart import line_too_long
from .events import Diagnostic, RawEvent
from .sse_runs import (
    FIRST_WINDOW,
    MAX_WINDOW,
    SSEItem,
    data_pairs,
    event_triples,
    read_pairs,
    read_triples,
)

_FIELDS = (b"data", b"event", b"id", b"retry")
MAX_NAMES = 256


def _name(line: bytes, names: dict[bytes, str]) -> str | None:
    """The event name of an ``event:`` line, decoded (and kept by the whole line: a stream
    names few kinds of event, and a run's lines are then looked up as they are), or None
    when it is not UTF-8 (``line`` then says so)."""
    try:
        event = (line[7:] if line.startswith(b"event: ") else line[6:]).decode()
    except UnicodeDecodeError:
        return None
    if len(names) < MAX_NAMES:
        names[line] = event
    return event


class FieldDecoder:
    """Lines to items. ``take_notes`` takes the diagnostics out with their place among the
    items (how many items were emitted before each)."""

    # The event being read: its data lines, where its first value starts, its name, and
    # where it began (``_ev_byte`` -1: no event pending).
    _data: list[bytes] | None
    _data_offset: int
    _event: str | None
    _ev_line: int
    _ev_byte: int

    def __init__(self, max_line: int, line: int, byte: int) -> None:
        self.max_line = max_line
        self.diagnostics: list[Diagnostic] = []
        self._marks: list[int] = []  # per diagnostic: how many items were emitted before it
        self.emitted = 0
        self.line_no = line
        self.byte = byte
        self.last_event_id: str | None = None
        self._held: list[SSEItem] = []  # comments inside a pending event, released after it
        self._names: dict[bytes, str] = {}  # event names decoded so far, by their whole line
        self._window = FIRST_WINDOW  # events looked at for a run of data events (``lines``)
        self._last: RawEvent | None = None
        self._meta = False
        self._reset_event()

    # ------------------------------------------------------- what the splitter calls
    def lf_of_crlf(self) -> None:
        """The LF of a CRLF split across reads: it belongs to the line before."""
        self.byte += 1
        if self._last is not None and self._last.end == self.byte - 1:
            self._last.end = self.byte

    def overlong(self, size: int, term: int) -> None:
        """A line of ``size`` bytes over the cap, then its ``term``-byte line ending, skipped."""
        self.note(
            "line_too_long", "error", line_too_long(size, self.max_line), self.line_no, self.byte
        )
        self.byte += size + term
        self.line_no += 1

    def finish(self, t: float | None, out: list[SSEItem]) -> None:
        """End of input: an event with no blank line after it is read, with a diagnostic."""
        if self._data is not None:
            self.note(
                "unterminated_event",
                "warning",
                "the last event is not followed by a blank line; it was read anyway",
            )
            self._dispatch(t, out)
        self._release(out)

    def take_notes(self) -> list[tuple[int, Diagnostic]]:
        """Take out every diagnostic so far, each with the number of items emitted before it
        (items are numbered from 0 over the decoder's life, as ``emitted`` counts them)."""
        notes = list(zip(self._marks, self.diagnostics, strict=True))
        self._marks.clear()
        self.diagnostics.clear()
        return notes

    # --------------------------------------------------------- many lines at once
    def lines(self, lines: list[bytes], t: float | None, out: list[SSEItem]) -> None:
        """LF-terminated lines. The common events, a ``data:`` line (or an ``event:`` line and
        a ``data:`` line) then a blank line, with no event pending, are read here in one step,
        exactly as ``line`` reads those lines; every other line goes through
        ``line``. The position is kept in locals meanwhile (this runs per event)."""
        count, i, max_line, names = len(lines), 0, self.max_line, self._names
        byte, lineno, emitted, last = self.byte, self.line_no, self.emitted, self._last
        pending, last_id, append = self._ev_byte >= 0, self.last_event_id, out.append
        window = self._window  # kept from block to block: a stream's events are alike
        while i < count:
            line = lines[i]
            if not pending and i + 1 < count and (line[:6] == b"data: " or line[:7] == b"event: "):
                self.byte, self.line_no, self.emitted, self._last = byte, lineno, emitted, last
                run, window = self._run(lines, i, t, last_id, window, out)
                if run:  # a run of the commonest events, read at once (sse_runs.py)
                    i += run
                    byte, lineno, emitted, last = self.byte, self.line_no, self.emitted, self._last
                    continue
            if not pending and i + 1 < count and len(line) <= max_line:
                if not lines[i + 1] and line.startswith(b"data:"):
                    value = line[6:] if line.startswith(b"data: ") else line[5:]
                    end = byte + len(line) + 2
                    last = RawEvent(-1, lineno, byte, end, t, "event", None, last_id)
                    append(SSEItem(last, value, None, end - 2 - len(value)))
                    byte, lineno, emitted, i = end, lineno + 2, emitted + 1, i + 2
                    continue
                data = lines[i + 1]
                if (
                    line.startswith(b"event:")
                    and data.startswith(b"data:")
                    and i + 2 < count
                    and not lines[i + 2]
                    and len(data) <= max_line
                ):
                    event = names.get(line) or _name(line, names)
                    if event is not None:
                        value = data[6:] if data.startswith(b"data: ") else data[5:]
                        end = byte + len(line) + len(data) + 3
                        last = RawEvent(-1, lineno, byte, end, t, "event", event, last_id)
                        append(SSEItem(last, value, None, end - 2 - len(value)))
                        byte, lineno, emitted, i = end, lineno + 3, emitted + 1, i + 3
                        continue
            self.byte, self.line_no, self.emitted, self._last = byte, lineno, emitted, last
            self.line(line, 1, t, out)
            byte, lineno, emitted, last = self.byte, self.line_no, self.emitted, self._last
            pending, last_id = self._ev_byte >= 0, self.last_event_id
            i += 1
        self.byte, self.line_no, self.emitted, self._last = byte, lineno, emitted, last
        self._window = window

    def _run(
        self,
        lines: list[bytes],
        i: int,
        t: float | None,
        last_id: str | None,
        window: int,
        out: list[SSEItem],
    ) -> tuple[int, int]:
        """A run of data events, or of named ones, from ``lines[i]`` (sse_runs.py): how many
        lines it took, and the window for the next one."""
        data = lines[i].startswith(b"data: ")
        if data:
            sizes = data_pairs(lines, i, self.max_line, window)
        else:
            named, sizes = event_triples(lines, i, self.max_line, window, self._names)
        events = len(sizes)
        per = 2 if data else 3
        if events == window:
            window = min(2 * window, MAX_WINDOW)
        elif i + per * (events + 1) <= len(lines):  # another kind of line broke the run
            window = FIRST_WINDOW
        if not events:
            return 0, window
        stop = i + per * events
        if data:
            items, end = read_pairs(lines[i:stop:2], sizes, self.byte, self.line_no, t, last_id)
        else:
            found = lines[i:stop:3], lines[i + 1 : stop : 3], named, sizes
            items, end = read_triples(*found, self.byte, self.line_no, t, last_id)
        out.extend(items)
        self.byte, self.line_no, self._last = end, self.line_no + per * events, items[-1].raw
        self.emitted += events
        return per * events, window

    # ------------------------------------------------------------------ one line
    def line(self, line: bytes, term: int, t: float | None, out: list[SSEItem]) -> None:
        """One line and its ``term``-byte line ending (0 for the last line of a body)."""
        start = self.byte
        lineno = self.line_no
        if len(line) > self.max_line:
            self.overlong(len(line), term)
            return
        self.byte = start + len(line) + term
        self.line_no = lineno + 1
        if not line:
            if self._data is not None:
                self._dispatch(t, out)
            elif self._meta:
                self._fields_only(t, out)
            else:
                self._reset_event()
            self._release(out)
            return
        if line[0] == 0x3A:  # ":" comment
            self._comment(line, start, lineno, t, out)
            return
        if self._ev_byte < 0:
            self._ev_byte, self._ev_line = start, lineno
        name, value = self._field(line, start, lineno)
        if name == b"data":
            if self._data is None:
                self._data = [value]
                self._data_offset = self.byte - term - len(value)
            else:
                self._data.append(value)
        elif name == b"event":
            self._meta = True
            self._event = self._text(value, start + len(line) - len(value))
        elif name == b"id":
            self._meta = True
            if b"\x00" not in value:
                self.last_event_id = self._text(value, start + len(line) - len(value))
        elif name == b"retry":
            self._meta = True
        else:
            self.note(
                "unknown_field",
                "info",
                f"line is not an SSE field ({self._text(name[:40], start)!r}...); ignored",
                lineno,
                start,
            )

    def _field(self, line: bytes, start: int, lineno: int) -> tuple[bytes, bytes]:
        """A field line's name and value (one space after the colon dropped)."""
        colon = line.find(b":")
        if colon < 0:
            return line, b""
        name, value = line[:colon], line[colon + 1 :]
        if value[:1] == b" ":
            value = value[1:]
        if name not in _FIELDS and name.strip() in _FIELDS:
            self.note(
                "field_whitespace",
                "warning",
                "a field name has spaces around it; read anyway (strict clients drop it)",
                lineno,
                start,
            )
            name = name.strip()
        return name, value

    def _comment(
        self, line: bytes, start: int, lineno: int, t: float | None, out: list[SSEItem]
    ) -> None:
        raw = RawEvent(-1, lineno, start, self.byte, t, "comment")
        text = line[2:] if line[1:2] == b" " else line[1:]  # one space, as for values
        item = SSEItem(raw, comment=self._text(text, start + len(line) - len(text)))
        self._last = raw  # the LF of a CRLF split across reads still belongs to it
        if self._ev_byte >= 0:
            self._held.append(item)  # inside an event: after it, to keep byte order
        else:
            self.emitted += 1
            out.append(item)

    def _dispatch(self, t: float | None, out: list[SSEItem]) -> None:
        data = self._data
        assert data is not None
        payload = data[0] if len(data) == 1 else b"\n".join(data)
        raw = RawEvent(
            -1, self._ev_line, self._ev_byte, self.byte, t, "event", self._event, self.last_event_id
        )
        self._last = raw
        self.emitted += 1
        out.append(SSEItem(raw, data=payload, data_offset=self._data_offset))
        self._reset_event()

    def _fields_only(self, t: float | None, out: list[SSEItem]) -> None:
        """An event of ``event:``, ``id:`` or ``retry:`` lines and no data: the spec dispatches
        nothing, but some clients do (docs/rules.md, ``meta-only-event``). Kept as a raw event
        of kind "other", with neither data nor a comment."""
        raw = RawEvent(
            -1, self._ev_line, self._ev_byte, self.byte, t, "other", self._event, self.last_event_id
        )
        self._last = raw
        self.emitted += 1
        out.append(SSEItem(raw))
        self._reset_event()

    def _release(self, out: list[SSEItem]) -> None:
        """Comments held while an event was pending come after it."""
        if self._held:
            self.emitted += len(self._held)
            out.extend(self._held)
            self._held = []

    def _reset_event(self) -> None:
        self._meta = False  # an event, id or retry field since the last dispatch
        self._data = None
        self._data_offset = 0
        self._event = None
        self._ev_line = 0
        self._ev_byte = -1

    def _text(self, value: bytes, at: int) -> str:
        try:
            return value.decode()
        except UnicodeDecodeError as exc:
            self.note(
                "invalid_utf8",
                "warning",
                f"byte 0x{value[exc.start]:02x} is not valid UTF-8; replaced with U+FFFD",
                self.line_no - 1,
                at + exc.start,
            )
            return value.decode(errors="replace")

    def note(
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
                line=self.line_no - 1 if line is None else line,
                byte=self.byte if byte is None else byte,
            )
        )
