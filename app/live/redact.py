"""Removing secrets from what a live run, a proxied call or ``streamscope record`` records and
shows (docs/security.md, "Secrets echoed by the upstream, across reads").

One redaction for uploads and recordings: the sweep (``app/captures/scrub/text.py``), JSON
escapes decoded, with the request's own credentials as known secrets (``Redactions.known``)
besides the rules' names and key shapes. An upstream that echoes a key as ``\\u0073k-...``, a
credential with a slash as ``...\\/...``, or a request body inside a JSON string is swept as an
upload of the same bytes is.

The sweep reads whole lines (a JSON string, where an escape can hide a secret, never spans
one), so the reads are swept a line at a time, across read boundaries
(``app/captures/scrub/cuts.py`` says where a text may be cut):

* ``feed`` gives back at once every complete line received so far, each piece with the time of
  the read it came in; consecutive pieces of one read come back as one;
* the line still open waits for its end, except a start of it that is only brackets, commas
  and blanks (a Gemini JSON array's ``}``), which goes out at once; the line is then swept
  whole, and what a rule puts in that start comes out with the rest;
* a field's name whose value may follow on a later line (``"api_key"``, then ``: "..."``) waits
  with the lines after it until the value comes;
* a line longer than the line cap (``STREAMSCOPE_MAX_LINE_MB``, the longest any reader reads)
  cannot be swept whole, so it is not recorded (``line over the line cap`` in the
  redactions), and the rest of it is dropped as it comes.

``flush`` sweeps and gives back what is held when the stream ends. So the recording holds what
the upload sweep of the same reads gives (tests/test_redact.py, for every split), and a
recording uploaded again is unchanged. A read cut by a held line comes out as two pieces with
its one time.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..captures.scrub import Redactions, known_forms, sweep, sweep_pieces
from ..captures.scrub.cuts import BLANKS, INERT_BYTES, dangling_start, inert
from ..domain.sse import DEFAULT_MAX_LINE

Piece = tuple[float, bytes]  # a read's time and bytes
OVERLONG = "line over the line cap (not recorded)"


@dataclass(frozen=True)
class _Held:
    read: int  # which read it came in
    t: float
    data: bytes


class Redactor:
    """One per run or call: its credentials, what was redacted, and what is held."""

    def __init__(self, secrets: list[str], max_line: int = DEFAULT_MAX_LINE) -> None:
        self.redactions = Redactions()
        self.redactions.known = known_forms(secrets)
        self.max_line = max_line
        self._held: list[_Held] = []
        self._size = 0  # bytes held
        self._out = 0  # of them, the inert start of the open line, already given out
        self._reads = 0
        self._dangling = False  # what is held ends with a field whose value may follow
        self._skipping = False  # inside a line over the cap: dropped until its end
        # A credential that starts with an inert byte could start in a part given out early.
        self._early = not any(form[:1] and form[0] in INERT_BYTES for form in self.redactions.known)

    # ------------------------------------------------------------------ whole values
    def whole(self, data: bytes) -> bytes:
        return sweep(data, self.redactions)

    def text(self, value: str) -> str:
        return self.whole(value.encode()).decode(errors="replace")

    # ------------------------------------------------------------------ a stream of reads
    def feed(self, t: float, data: bytes) -> list[Piece]:
        """The pieces that can go out now, swept, each with the time of its read."""
        self._reads += 1
        if self._skipping:
            data = self._skip_rest_of_line(data)
        if not data:
            return []
        self._held.append(_Held(self._reads, t, data))
        self._size += len(data)
        line_end = data.rfind(b"\n")
        out = []
        if line_end >= 0 and not (self._dangling and not data.strip(BLANKS)):
            # (blanks after a field's name release nothing: its value may still follow)
            out = self._release(self._size - len(data) + line_end + 1, final=False)
        if self._size > self.max_line:
            self._drop_open_line()
        elif not self._dangling and self._early:
            out += self._inert_start()
        return _merged(out)

    def flush(self) -> list[Piece]:
        """What is held, swept; the stream has ended."""
        return _merged(self._release(self._size, final=True))

    # ------------------------------------------------------------------ helpers
    def _release(self, cut: int, *, final: bool) -> list[_Held]:
        """Sweep the held bytes before ``cut`` (a line's end, or all) and give back what was
        not given out yet; a field at their end whose value may follow stays held."""
        if not final:
            joined = b"".join(h.data for h in self._held)
            start = dangling_start(joined, cut)
            self._dangling = start is not None
            if start is not None:
                cut = joined.rfind(b"\n", 0, start) + 1
        if cut <= self._out:
            return []
        out, self._held = _split(self._held, cut)
        self._size -= cut
        given, self._out = self._out, 0
        clean = sweep_pieces([h.data for h in out], self.redactions)
        found = []
        for held, piece in zip(out, clean, strict=True):
            if given >= len(held.data):  # given out before, as it came
                given -= len(held.data)
                piece = piece.removeprefix(held.data)  # what a rule added there, if anything
            if piece:
                found.append(_Held(held.read, held.t, piece))
        return found

    def _inert_start(self) -> list[_Held]:
        """The open line's new bytes, if it is inert so far: they go out now, as they came."""
        fresh = _split(self._held, self._out)[1]
        if not fresh or not inert(b"".join(h.data for h in fresh)):
            return []
        self._out = self._size
        return fresh

    def _drop_open_line(self) -> None:
        """What is held is longer than any reader reads, so it cannot be swept as one line:
        it is not recorded, and the rest of its line is dropped as it comes."""
        self._skipping = not self._held[-1].data.endswith(b"\n")
        self._held, self._size, self._out, self._dangling = [], 0, 0, False
        self.redactions[OVERLONG] += 1

    def _skip_rest_of_line(self, data: bytes) -> bytes:
        end = data.find(b"\n")
        if end < 0:
            return b""
        self._skipping = False
        return data[end + 1 :]


def _split(held: list[_Held], cut: int) -> tuple[list[_Held], list[_Held]]:
    """The pieces before byte ``cut`` of their joined text, and those after; a piece the cut
    falls inside becomes two, from its one read."""
    before: list[_Held] = []
    at = 0
    for index, piece in enumerate(held):
        if at + len(piece.data) <= cut:
            before.append(piece)
            at += len(piece.data)
            continue
        inside = cut - at
        after = [_Held(piece.read, piece.t, piece.data[inside:]), *held[index + 1 :]]
        if inside:
            before.append(_Held(piece.read, piece.t, piece.data[:inside]))
        return before, after
    return before, []


def _merged(held: list[_Held]) -> list[Piece]:
    """The pieces with their times, consecutive pieces of one read joined."""
    out: list[Piece] = []
    last_read = None
    for piece in held:
        if piece.read == last_read:
            out[-1] = (piece.t, out[-1][1] + piece.data)
        else:
            out.append((piece.t, piece.data))
        last_read = piece.read
    return out
