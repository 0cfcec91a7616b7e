"""One websocket connection's work, built from ``send`` and ``receive`` callables so that
tests need no socket.

For a capture, the whole timeline goes out at once, in batches (``raw_meta``, ``events``,
``summary`` per stream, then ``end``): the page paces playback with its own clock, so play,
pause, seek and speed never wait for the server. Afterwards the session answers
``raw_request`` s for the raw view until the page leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ...protocol import (
    MAX_RAW_REQUEST,
    VERSION,
    ProtocolError,
    decode_client,
    encode,
    whole_numbers,
)
from ...services.frames import Prepared
from ...services.replay import encoded_capture
from ...services.sources import Loaded, Sources
from ...settings import Settings
from ...version import __version__
from ...wire import StreamEncoder
from ..errors import StreamscopeError
from .live_session import LiveViewing
from .room_session import RoomViewing

if TYPE_CHECKING:
    from ...live.followed import Followed
    from ...live.service import LiveService
    from ...rooms.service import RoomService
    from .admission import Admission
    from .endpoint import GuardedSocket

OPEN_TIMEOUT = 30.0


class Closed(Exception):
    """The page went away."""


class Session(LiveViewing, RoomViewing):
    def __init__(
        self,
        send: Callable[[str | Prepared], None],
        receive: Callable[[float | None], str | bytes | None],
        sources: Sources,
        settings: Settings,
        live: LiveService | None = None,
        socket: GuardedSocket | None = None,
        rooms: RoomService | None = None,
        admission: Admission | None = None,
    ) -> None:
        self._send = send
        self._receive = receive
        self.sources = sources
        self.settings = settings
        self.live = live
        self.socket = socket
        self.rooms = rooms  # presenter rooms (room_session.py)
        self.admission = admission  # counts the pages in each room
        self.kind = "none"  # replay, live-start, live-follow, room: for the log line
        self.source_name: str | None = None
        self.loaded: Loaded | None = None

    def run(self) -> None:
        self._send(
            encode(
                "hello",
                version=VERSION,
                server=f"streamscope {__version__}",
                max_message=self.settings.ws_max_message,
                max_raw_request=MAX_RAW_REQUEST,
            )
        )
        first = self._next(OPEN_TIMEOUT)
        if first is None:
            self._error("timeout", "no open message came")
            return
        if first.get("type") == "start" and self.live is not None:
            self.kind = "live-start"
            self._start(first)
            return
        if first.get("type") == "join":
            self.kind = "room"
            self._join(first, parse_resume(first.get("resume")))
            return
        if first.get("type") != "open" or not isinstance(first.get("source"), dict):
            self._error(
                "bad_message", "the first message must be open (with a source), start or join"
            )
            return
        capture_id = first["source"].get("capture")
        run: Followed | None = (
            self.live.registry.get(capture_id)
            if self.live and isinstance(capture_id, str)
            else None
        )
        if run is None and self.live is not None and isinstance(capture_id, str):
            run = self.live.elsewhere(capture_id)  # another process's run, through Redis
        self.source_name = str(first["source"].get("demo") or capture_id)
        resume = parse_resume(first.get("resume"))
        if run is not None:
            self.kind = "live-follow"
            store = self.sources.store
            record = store.get(capture_id) if store is not None else None
            self._follow(run, record.title if record else "Live run", starter=False, resume=resume)
            return
        try:
            self.loaded = self.sources.open(first["source"])
        except StreamscopeError as exc:
            self._error(exc.code, exc.message)
            return
        self.kind = "replay"
        self.send_capture(self.loaded, resume)
        self._serve_requests()

    # ------------------------------------------------------------------ sending
    def send_capture(self, loaded: Loaded, resume: tuple[int, int] | None = None) -> None:
        """Everything, or (resuming after a dropped connection) what the page lacks: streams
        before ``resume[0]`` are skipped, and that stream's first ``resume[1]`` events. The
        messages are encoded once per capture and shared by every viewer (replay.py)."""
        encoded = encoded_capture(loaded, self.settings)
        self._send(encoded.capture)
        first_stream, skip = resume or (0, 0)
        for stream in encoded.streams[first_stream:]:
            self._send(stream.raw_meta)
            batches: Iterable[str] | Iterable[Prepared] = stream.batches()
            if stream.index == first_stream and skip:
                source = loaded.capture.streams[stream.index]
                batches = StreamEncoder(source, self.settings.event_batch).events(skip)
            for batch in batches:
                self._send(batch)
            self._send(stream.summary())
            self._send(stream.findings())
        self._send(encode("end", reason="complete"))

    def _serve_requests(self) -> None:
        while True:
            message = self._next(None)
            if message is None:
                continue
            if message["type"] == "raw_request":
                self._raw(message)
            elif message["type"] == "stop":
                continue  # nothing to stop in a replay
            elif message["type"] in ("join", "present"):
                self._error("not_in_room", "this connection plays a capture, not a room")

    def _raw(self, message: dict[str, Any]) -> None:
        assert self.loaded is not None
        streams = self.loaded.capture.streams
        numbers = whole_numbers(message, "stream", "start", "count")
        if numbers is None or numbers[0] >= len(streams):
            self._error("bad_message", "raw_request needs stream, start and count (integers)")
            return
        index, start, count = numbers
        items = StreamEncoder(streams[index]).raw_items(start, min(count, MAX_RAW_REQUEST))
        self._send(encode("raw", stream=index, start=start, items=items))

    # ------------------------------------------------------------------ receiving
    def _next(self, timeout: float | None) -> dict[str, Any] | None:
        text = self._receive(timeout)
        if text is None:
            return None
        try:
            return decode_client(text)
        except ProtocolError as exc:
            self._error(exc.code, exc.message)
            return {"type": "invalid"}

    def _error(self, code: str, message: str) -> None:
        self._send(encode("error", code=code, message=message))


def parse_resume(value: Any) -> tuple[int, int] | None:
    """``{"stream": s, "events": n}``: the page has streams before s and n events of s."""
    if not isinstance(value, dict):
        return None
    numbers = whole_numbers(value, "stream", "events")
    return (numbers[0], numbers[1]) if numbers is not None else None
