"""Requests written byte by byte on a plain socket, for what ``http.client`` will not send: a
forged ``Host``, a chunked body the server stops reading, headers that arrive slowly, a body
that trickles. And the stored-capture count and a server's memory, read from outside."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def error(self) -> dict[str, Any]:
        return json.loads(self.body)["error"]


def head(method: str, path: str, host: str, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_answer(sock: socket.socket) -> Answer:
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = b"" if response.status == 101 else response.read()
    return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body)


def exchange(
    port: int, request: bytes, body: bytes | Iterable[bytes] = b"", timeout: float = 30
) -> Answer:
    """Send ``request`` and ``body`` and read the answer. A large body (or one given in
    pieces) is sent from a thread: the server may answer before it has read all of it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        if isinstance(body, bytes) and len(body) <= 64 * 1024:
            request, body = request + body, b""
        sock.sendall(request)
        pieces = [body] if isinstance(body, bytes) else body
        sender = threading.Thread(target=_send_quietly, args=(sock, pieces), daemon=True)
        sender.start()
        answer = read_answer(sock)
        sender.join(timeout)
        return answer


def _send_quietly(sock: socket.socket, pieces: Iterable[bytes]) -> None:
    with contextlib.suppress(OSError):
        for piece in pieces:
            sock.sendall(piece)


def chunked(data: bytes, piece: int = 64 * 1024) -> bytes:
    """``data`` in Transfer-Encoding: chunked framing."""
    out = [
        f"{len(data[i : i + piece]):x}\r\n".encode() + data[i : i + piece] + b"\r\n"
        for i in range(0, len(data), piece)
    ]
    return b"".join(out) + b"0\r\n\r\n"


def post_chunked(port: int, path: str, body: bytes, content_type: str) -> Answer:
    request = head(
        "POST",
        path,
        f"127.0.0.1:{port}",
        {"Content-Type": content_type, "Transfer-Encoding": "chunked"},
    )
    return exchange(port, request, chunked(body))


class Trickle:
    """A request whose ``fast`` part is sent at once, then its ``slow`` part two bytes every
    ``interval`` seconds, then one more byte (``x``) every interval, until ``stop()`` or the
    server closes: a slow head, or (after a whole head) a slow body."""

    def __init__(self, port: int, fast: bytes, slow: bytes = b"", interval: float = 0.5) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.fast, self.slow = fast, slow
        self.interval = interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.sock.sendall(self.fast)
            for i in range(0, len(self.slow), 2):
                if self.stopped.wait(self.interval):
                    return
                self.sock.sendall(self.slow[i : i + 2])
            while not self.stopped.wait(self.interval):
                self.sock.sendall(b"x")
        except OSError:
            return

    def answer(self, timeout: float) -> Answer | None:
        """What the server answered, if it answered within ``timeout`` seconds."""
        self.sock.settimeout(timeout)
        try:
            return read_answer(self.sock)
        except (OSError, http.client.HTTPException):
            return None

    def closed_within(self, timeout: float) -> bool:
        """Whether the server closes the connection within ``timeout`` seconds (an answer
        before the close is read and dropped)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                if not self.sock.recv(65536):
                    return True
            except TimeoutError:
                return False
            except OSError:
                return True
        return False

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        with contextlib.suppress(OSError):
            self.sock.close()


def stored_captures(data_dir: Path) -> int:
    with contextlib.closing(sqlite3.connect(data_dir / "streamscope.db")) as db:
        return db.execute("SELECT COUNT(*) FROM captures").fetchone()[0]


def serving_pid(server: Any) -> int:
    """The process that handles requests: the server itself, or gunicorn's only worker."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return int(children[0]) if children else pid


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def reset_peak(pid: int) -> int:
    """Reset the process's peak RSS (VmHWM) to its current RSS; the RSS in KiB."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    time.sleep(0.05)
    return _status_kib(pid, "VmRSS")


def peak_kib(pid: int) -> int:
    return _status_kib(pid, "VmHWM")
