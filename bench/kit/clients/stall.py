"""``stall``: raw sockets with a small receive buffer that open a source and never read
again (load_slow.py): the server must drop them without slowing the others."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from typing import Any

from kit.clients import Clock, client_frame, emit, stdin_line, upgrade_request


def stalled_socket(port: int, source: dict[str, Any], rcvbuf: int = 4096) -> socket.socket:
    """A websocket that opens ``source`` and then never reads (``rcvbuf`` receive buffer)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect: small window
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(upgrade_request(port))
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(1024)
        if not data:
            raise OSError("closed during the handshake")
        head += data
    if not head.startswith(b"HTTP/1.1 101"):
        raise OSError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    sock.sendall(client_frame(1, json.dumps({"type": "open", "source": source}).encode()))
    return sock  # and never read again


async def stall(spec: dict[str, Any], clock: Clock) -> None:
    """``n`` stuck connections at once (and ``n`` more every ``reopen_s``) until ``stop``."""
    n, source = spec["n"], spec["source"]
    reopen = spec.get("reopen_s")
    rcvbuf = spec.get("rcvbuf", 4096)
    socks: list[socket.socket] = []
    failed = 0

    def open_one() -> None:
        nonlocal failed
        try:
            socks.append(stalled_socket(spec["port"], source, rcvbuf))
        except OSError:
            failed += 1

    loop = asyncio.get_running_loop()
    await asyncio.gather(*(loop.run_in_executor(None, open_one) for _ in range(n)))
    emit("ready", opened=len(socks), failed=failed)
    stop = asyncio.create_task(stdin_line())
    while True:
        done, _ = await asyncio.wait({stop}, timeout=reopen)
        if done:
            break
        await asyncio.gather(*(loop.run_in_executor(None, open_one) for _ in range(n)))
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.close()
    emit("result", opened=len(socks), failed=failed, client=clock.info())
