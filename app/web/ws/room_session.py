"""The presenter-room side of a websocket session (docs/teaching.md, docs/protocol.md
``join``): a page joins a room, gets its source and current state, the capture as a replay
sends it, and then every state the presenter mirrors. Mixed into ``Session``, which provides
``_send``, ``_next``, ``_error``, ``send_capture``, ``sources`` and the log fields.

The presenter's page is in the room like any other; what makes it the presenter is the key in
each ``present`` message, checked per message (app/rooms/service.py). Once the page follows
the room, everything it is sent goes through the room's writer (web/room_fanout.py), errors
included, so that the writer's frames and ours never interleave on the socket.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...protocol import ProtocolError, encode
from ...rooms.service import Bucket
from ...services.frames import Prepared
from ...settings import Settings
from ...storage.rooms import RoomRecord
from ..errors import StreamscopeError
from .fanout import Follower
from .room_fanout import attach

if TYPE_CHECKING:
    from ...rooms.service import RoomService
    from ...services.sources import Loaded, Sources
    from .admission import Admission
    from .endpoint import GuardedSocket

ROOM_TICK = 0.25  # how often a room page's loop looks whether it was dropped


class RoomViewing:
    _send: Callable[[str | Prepared], None]
    rooms: RoomService | None
    admission: Admission | None
    socket: GuardedSocket | None
    settings: Settings
    sources: Sources
    source_name: str | None
    loaded: Loaded | None

    def _next(self, timeout: float | None) -> dict[str, Any] | None:
        raise NotImplementedError

    def _error(self, code: str, message: str) -> None:
        raise NotImplementedError

    def send_capture(self, loaded: Loaded, resume: tuple[int, int] | None = None) -> None:
        raise NotImplementedError

    def _raw(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def _join(self, message: dict[str, Any], resume: tuple[int, int] | None) -> None:
        rooms = self.rooms
        room_id = message.get("room")
        if rooms is None or not isinstance(room_id, str):
            self._error("bad_message", "join needs the room's id (a string)")
            return
        self.source_name = room_id
        record = rooms.get(room_id)
        if record is None:
            self._error("no_room", "no such room (it expired, or its capture was deleted)")
            return
        if self.admission is not None:
            try:
                self.admission.join_room(room_id)
            except StreamscopeError as exc:
                self._error(exc.code, exc.message)
                return
        try:
            self._in_room(rooms, record, message, resume)
        finally:
            if self.admission is not None:
                self.admission.leave_room(room_id)

    def _in_room(
        self,
        rooms: RoomService,
        record: RoomRecord,
        message: dict[str, Any],
        resume: tuple[int, int] | None,
    ) -> None:
        source = {"demo": record.demo} if record.demo is not None else {"capture": record.source}
        try:
            self.loaded = self.sources.open(source)
        except StreamscopeError as exc:
            self._error(exc.code, exc.message)
            return
        rooms.joined(record)
        key = message.get("key")
        mirror = rooms.latest(record)
        self._send(
            encode(
                "room",
                room=record.id,
                source=source,
                presenter=isinstance(key, str) and record.key_matches(key),
                viewer_url=f"/r/{record.id}",
                seq=mirror.seq if mirror else 0,
                action=mirror.action if mirror else None,
                state=rooms.now_state(mirror) if mirror else None,
            )
        )
        self.send_capture(self.loaded, resume)
        self._follow_room(rooms, record.id, mirror.seq if mirror else 0)

    def _follow_room(self, rooms: RoomService, room_id: str, seq: int) -> None:
        guarded = self.socket
        if guarded is None:
            raise RuntimeError("following a room needs the connection's own socket")
        follower = Follower(guarded, seq, self.settings.ws_send_timeout)
        writer = attach(room_id, rooms.bus, follower)

        def through_writer(text: str | Prepared) -> None:
            follower.answer(text if isinstance(text, str) else text.text)
            writer.poke()

        self._send = through_writer  # from now on the writer sends everything (module doc)
        # A page's own presenter messages, checked or not, at the room's rate: a viewer
        # forging them cannot make the server read the store faster than that.
        sends = Bucket(self.settings.room_rate, time.monotonic())
        try:
            while not follower.done.is_set():
                message = self._next(ROOM_TICK)
                if message is None:
                    continue
                if message["type"] == "present":
                    if not sends.take(time.monotonic()):
                        self._error("rate_limited", self._too_fast())
                        continue
                    try:
                        rooms.present(room_id, message)
                    except ProtocolError as exc:
                        self._error(exc.code, exc.message)
                elif message["type"] == "raw_request":
                    self._raw(message)  # answered as a replay answers it
                elif message["type"] != "invalid":
                    self._error("bad_message", f"{message['type']} is not taken in a room")
        finally:
            follower.leave()
        if follower.dropped:
            raise OSError("dropped: the page stopped reading")

    def _too_fast(self) -> str:
        return (
            f"this page sent more than {self.settings.room_rate:g} presenter messages a second "
            "(STREAMSCOPE_ROOM_RATE); this one was not read"
        )
