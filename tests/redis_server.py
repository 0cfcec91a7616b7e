"""A real Redis server for tests, from Debian's ``redis-server`` package, on a free loopback
port, with nothing saved to disk. ``kill()`` ends it at once (SIGKILL, as a crash would) and
``start()`` brings it back on the same port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from .live_server import free_port


def binary() -> str | None:
    return shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )


def serving() -> Iterator[RedisServer]:
    """A started server for a fixture to yield from (the test is skipped without the package),
    stopped after."""
    if binary() is None:
        pytest.skip("redis-server is not installed here (the README's test command installs it)")
    server = RedisServer().start()
    yield server
    server.stop()


class RedisServer:
    def __init__(self, port: int | None = None) -> None:
        found = binary()
        if found is None:
            raise RuntimeError("redis-server is not installed (Debian package redis-server)")
        self.binary = found
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.root = Path(tempfile.mkdtemp(prefix="streamscope-redis-"))
        self.process: subprocess.Popen | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> RedisServer:
        self._close_log()
        self._log = (self.root / "log").open("ab")
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
                "--protected-mode",
                "yes",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {(self.root / 'log').read_text()}")
            if self.ping():
                return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer in 20 s")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: the server is gone at once, as in a crash (nothing is saved)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_log()
        shutil.rmtree(self.root, ignore_errors=True)
