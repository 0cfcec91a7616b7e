"""The SSE decoder's complete lines read fast (sse.py hands every LF-only block here).

The common events, a ``data:`` line (or an ``event:`` line and a ``data:`` line) then a blank
line, with no event pending, are read here in one step, runs of them at once (sse_runs.py),
exactly as ``SSEDecoder._process_line`` reads those lines one by one
(tests/test_fast_paths.py, tests/test_reading_runs.py); every other line goes through
``_process_line``.
"""

from __future__ import annotations

from .events import RawEvent
from .sse_runs import (
    FIRST_WINDOW,
    MAX_WINDOW,
    SSEItem,
    data_pairs,
    event_triples,
    read_pairs,
    read_triples,
)

MAX_NAMES = 256


def _name(line: bytes, names: dict[bytes, str]) -> str | None:
    """The event name of an ``event:`` line, decoded (and kept by the whole line: a stream
    names few kinds of event, and a run's lines are then looked up as they are), or None
    when it is not UTF-8 (``_process_line`` then says so)."""
    try:
        event = (line[7:] if line.startswith(b"event: ") else line[6:]).decode()
    except UnicodeDecodeError:
        return None
    if len(names) < MAX_NAMES:
        names[line] = event
    return event


class LineReading:
    """``SSEDecoder``'s reading of LF-terminated lines (the state is the decoder's)."""

    max_line: int
    emitted: int
    last_event_id: str | None
    _byte: int
    _line: int
    _last: RawEvent | None
    _names: dict[bytes, str]
    _window: int
    _ev_byte: int

    def _process_line(self, line: bytes, term: int, t: float | None, out: list[SSEItem]) -> None:
        raise NotImplementedError

    def _lines(self, lines: list[bytes], t: float | None, out: list[SSEItem]) -> None:
        """LF-terminated lines. The common events, a ``data:`` line (or an ``event:`` line and
        a ``data:`` line) then a blank line, with no event pending, are read here in one step,
        exactly as ``_process_line`` reads those lines; every other line goes through
        ``_process_line``. The position is kept in locals meanwhile (this runs per event)."""
        count, i, max_line, names = len(lines), 0, self.max_line, self._names
        byte, lineno, emitted, last = self._byte, self._line, self.emitted, self._last
        pending, last_id, append = self._ev_byte >= 0, self.last_event_id, out.append
        window = self._window  # kept from block to block: a stream's events are alike
        while i < count:
            line = lines[i]
            if not pending and i + 1 < count and (line[:6] == b"data: " or line[:7] == b"event: "):
                self._byte, self._line, self.emitted, self._last = byte, lineno, emitted, last
                run, window = self._run(lines, i, t, last_id, window, out)
                if run:  # a run of the commonest events, read at once (sse_runs.py)
                    i += run
                    byte, lineno, emitted, last = self._byte, self._line, self.emitted, self._last
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
            self._byte, self._line, self.emitted, self._last = byte, lineno, emitted, last
            self._process_line(line, 1, t, out)
            byte, lineno, emitted, last = self._byte, self._line, self.emitted, self._last
            pending, last_id = self._ev_byte >= 0, self.last_event_id
            i += 1
        self._byte, self._line, self.emitted, self._last = byte, lineno, emitted, last
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
            items, end = read_pairs(lines[i:stop:2], sizes, self._byte, self._line, t, last_id)
        else:
            found = lines[i:stop:3], lines[i + 1 : stop : 3], named, sizes
            items, end = read_triples(*found, self._byte, self._line, t, last_id)
        out.extend(items)
        self._byte, self._line, self._last = end, self._line + per * events, items[-1].raw
        self.emitted += events
        return per * events, window
