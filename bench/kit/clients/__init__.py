"""Client processes: many websocket clients at once on one asyncio loop.

``python -m kit.clients ROLE`` (started by ``kit.workers.Worker``) reads the role's spec as
its first stdin line, reports JSON lines on stdout (``ready``, ``result``...) and takes ``go``
on stdin. Each result carries the process's own CPU seconds and its event-loop lag (how late
a 10 ms sleep wakes up), to tell when the client, not the server, is the bottleneck.

Roles (``ROLES`` in ``__main__``): ``starter`` and ``follow`` (``live``: start a live run;
viewers of its share link, with ``lean`` the minimal client of ``lean``), ``replay``,
``replayloop`` and ``churn`` (``replay``), ``replayhttp`` (``httpreplay``: the timeline document
over HTTP), ``stall`` (``stall``: sockets that never read), ``presenter`` and ``roomview``
(``rooms``: a presenter room's presenter and its viewers), ``proxy`` (``proxy``: HTTP streams
through the recording proxy or straight from the fake).
Large ``events`` batches are checked on their text (``"seq":N`` in order, counted) rather
than parsed whole, so that the client keeps up.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import resource
import sys
import time
from typing import Any

from app.protocol import SUBPROTOCOL
from kit.table import pct


def emit(event: str, **fields: Any) -> None:
    """One JSON line to the bench."""
    sys.stdout.write(json.dumps({"event": event, **fields}, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def stdin_line() -> str:
    """The bench's next line (``go``), without blocking the loop."""
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


class Clock:
    """This process's CPU seconds and its event-loop lag (how late a 10 ms sleep wakes up)
    since it started, as every result reports them (``client``)."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.cpu0, self.wall0 = self._cpu(), time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._tick())

    @staticmethod
    def _cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    async def _tick(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append((time.perf_counter() - t - 0.01) * 1000)

    def info(self) -> dict[str, float]:
        self._task.cancel()
        return {
            "cpu_s": round(self._cpu() - self.cpu0, 3),
            "wall_s": round(time.monotonic() - self.wall0, 3),
            "loop_lag_p95_ms": round(pct(self.lags, 95), 2),
            "loop_lag_max_ms": round(max(self.lags, default=0.0), 2),
        }


async def ws_connect(port: int, open_timeout: float = 60) -> Any:
    """A ``websockets`` client on the server's /ws (its origin, our subprotocol)."""
    from websockets.asyncio.client import connect
    from websockets.typing import Origin, Subprotocol

    return await connect(
        f"ws://127.0.0.1:{port}/ws",
        origin=Origin(f"http://127.0.0.1:{port}"),
        subprotocols=[Subprotocol(SUBPROTOCOL)],
        compression=None,
        max_size=None,
        proxy=None,
        ping_interval=None,
        open_timeout=open_timeout,
        close_timeout=2,
    )


def describe(exc: BaseException) -> str:
    """An exception in a line (an HTTP refusal of the upgrade with its status and body)."""
    response = getattr(exc, "response", None)
    if response is not None and getattr(response, "status_code", None):
        body = bytes(getattr(response, "body", b"") or b"")[:200].decode(errors="replace")
        return f"HTTP {response.status_code} {body}"
    return f"{type(exc).__name__}: {exc}"[:300]


def upgrade_request(port: int) -> bytes:
    """The websocket upgrade request of the raw-socket clients (``lean``, ``stall``)."""
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n"
    ).encode()


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame (payloads under 64 KiB)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode]) + (
        bytes([0x80 | n]) if n < 126 else b"\xfe" + n.to_bytes(2, "big")
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
