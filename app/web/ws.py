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
from typing import Any

from flask import current_app
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from ..protocol import SUBPROTOCOL, encode
from .security import WS_PATH
from .session import Session

sock = Sock()
log = logging.getLogger("streamscope.ws")
MIN_RATE = 1024 * 1024  # bytes per second a viewer must at least read


class GuardedSocket:
    """The connection's socket with whole, locked, time-bounded sends."""

    def __init__(self, raw: socket.socket, timeout: float) -> None:
        self._raw = raw
        self._timeout = timeout
        self._lock = threading.Lock()

    def send(self, data: bytes) -> int:
        with self._lock:
            self._raw.settimeout(self._timeout + len(data) / MIN_RATE)
            try:
                self._raw.sendall(data)
            finally:
                self._raw.settimeout(None)
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def server_options(settings: dict[str, Any]) -> dict[str, Any]:
    return {
        "subprotocols": [SUBPROTOCOL],
        "ping_interval": settings["ws_ping_interval"],
        "max_message_size": settings["ws_max_message"],
    }


@sock.route(WS_PATH)
def websocket(ws: Any) -> None:
    settings = current_app.config["STREAMSCOPE"]
    ws.sock = GuardedSocket(ws.sock, settings["ws_send_timeout"])
    extensions = current_app.extensions
    session = Session(
        ws.send,
        ws.receive,
        extensions["streamscope.sources"],
        settings,
        extensions["streamscope.live"],
    )
    try:
        session.run()
    except (ConnectionClosed, OSError) as exc:
        log.info("websocket closed: %s", type(exc).__name__)
    except Exception:
        # After the upgrade an HTTP 500 would corrupt the stream: say it in the protocol.
        log.exception("websocket session failed")
        with contextlib.suppress(ConnectionClosed, OSError):
            ws.send(
                encode("error", code="internal", message="the server failed; it has been logged")
            )
    finally:
        # Mark it closed first: flask-sock then skips its own close frame, which would wait
        # another send timeout on a viewer that does not read.
        ws.connected = False
        with contextlib.suppress(OSError):
            ws.sock.close()
    raise ConnectionClosed()
