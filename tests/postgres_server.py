"""A real PostgreSQL server for tests, started from Debian's ``postgresql`` package binaries in
a temporary directory on a free loopback port (as the ``postgres`` user when we are root)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .live_server import free_port


def binaries() -> Path | None:
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name)
    )
    return versions[-1].parent if versions else None


class PostgresServer:
    def __init__(self, max_connections: int = 100) -> None:
        self.bin = binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (Debian package postgresql)")
        # Not under pytest's temporary folder: it is private to root, and the server runs as
        # the postgres user.
        self.root = Path(tempfile.mkdtemp(prefix="streamscope-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        # The store holds a connection per thread that uses it (app/storage/sql.py): a bench
        # with hundreds of viewers over several processes needs more than PostgreSQL's 100.
        self.max_connections = max_connections

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> PostgresServer:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        )
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections={self.max_connections}"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        return self

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
