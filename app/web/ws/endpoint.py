"""The websocket endpoint (flask-sock). Handshake checks run before the upgrade
(``security.py``); here each connection gets bounded sends and a ``Session``.

simple-websocket's ``send()`` has no timeout and uses ``socket.send``, so a page that stops
reading would hold this thread forever. ``GuardedSocket`` replaces the connection's socket with
one whose sends are whole (``sendall``), serialised with the ping thread, and bounded in time:
a viewer that stops reading is dropped after ``ws_send_timeout`` seconds (plus time for the
message's size at 1 MB/s).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from typing import Any

from flask_sock import Sock
from simple_websocket import ConnectionClosed

from ...protocol import SUBPROTOCOL, encode
from ...services.frames import Prepared, frame, peer_inflates
from ...settings import Settings
from .. import logs
from ..context import services
from ..security import WS_PATH
from .session import Session

sock = Sock()
log = logging.getLogger("streamscope.ws")
MIN_RATE = 1024 * 1024  # bytes per second a viewer must at least read


class GuardedSocket:
    """The connection's socket with whole, locked, time-bounded sends."""

    def __init__(self, raw: socket.socket, timeout: float) -> None:
        self.raw = raw
        self.timeout = timeout
        self.lock = threading.Lock()  # shared with a live run's writer (web/fanout.py)

    def send(self, data: bytes) -> int:
        with self.lock:
            self.raw.settimeout(self.timeout + len(data) / MIN_RATE)
            try:
                self.raw.sendall(data)
            finally:
                self.raw.settimeout(None)
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def server_options(settings: Settings) -> dict[str, Any]:
    return {
        "subprotocols": [SUBPROTOCOL],
        "ping_interval": settings.ws_ping_interval,
        "max_message_size": settings.ws_max_message,
    }


@sock.route(WS_PATH)
def websocket(ws: Any) -> None:
    settings = services().settings
    ws.sock = GuardedSocket(ws.sock, settings.ws_send_timeout)
    counter = FrameSender(ws.sock, peer_inflates(ws))
    session = Session(
        counter,
        Receiver(ws),
        services().sources,
        settings,
        services().live,
        ws.sock,
        services().rooms,
        services().admission,
    )
    started, ended = time.monotonic(), "closed by the page"
    try:
        session.run()
        ended = "done"
    except (ConnectionClosed, OSError) as exc:
        ended = f"connection closed ({type(exc).__name__})"
    except Exception:
        # After the upgrade an HTTP 500 would corrupt the stream: say it in the protocol.
        ended = "server error"
        log.exception("websocket session failed")
        with contextlib.suppress(ConnectionClosed, OSError):  # our frames only (frames.py)
            counter(
                encode("error", code="internal", message="the server failed; it has been logged")
            )
    finally:
        if ended == "done" and ws.connected:
            with contextlib.suppress(ConnectionClosed, OSError):
                ws.close()  # a proper close frame for a page that is still reading
        # Marked closed, flask-sock skips its own close frame (which would wait another send
        # timeout on a viewer that does not read). The shutdown also stops the dev server from
        # writing an HTTP response line into the upgraded connection afterwards.
        ws.connected = False
        with contextlib.suppress(OSError):
            ws.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            ws.sock.close()
        logs.event(
            "stream",
            kind=session.kind,
            source=session.source_name,
            messages=counter.messages,
            bytes=counter.bytes,
            seconds=round(time.monotonic() - started, 3),
            ended=ended,
            client=logs.client_address(),
        )
    raise ConnectionClosed()


class Receiver:
    """``receive`` in slices of a second, checking that the connection is still up.

    simple-websocket can miss its own wake-up when a connection closes (it sets its event before
    it marks itself disconnected, and a waiting ``receive`` clears the event in between); a
    plain ``receive(None)`` would then wait forever on a closed connection."""

    SLICE = 1.0

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    def __call__(self, timeout: float | None) -> str | bytes | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = (
                self.SLICE
                if deadline is None
                else max(0.0, min(self.SLICE, deadline - time.monotonic()))
            )
            message = self.ws.receive(timeout=left)
            if message is not None:
                return message
            if not self.ws.connected:
                raise ConnectionClosed(self.ws.close_reason, self.ws.close_message)
            if deadline is not None and time.monotonic() >= deadline:
                return None


class FrameSender:
    """Sends a session's messages as frames built here (frames.py): shared replay messages
    as framed and compressed once, the rest as plain frames; counts them for the log line."""

    def __init__(self, guarded: GuardedSocket, can_inflate: bool) -> None:
        self.guarded = guarded
        self.can_inflate = can_inflate
        self.messages = 0
        self.bytes = 0

    def __call__(self, message: str | Prepared) -> None:
        if isinstance(message, Prepared):
            data = message.for_peer(self.can_inflate)
        else:
            data = frame(message.encode())
        self.bytes += self.guarded.send(data)
        self.messages += 1
