"""``streamscope serve --production`` (gunicorn gthread) in a subprocess, and uploads to it.

``Server`` runs on a free loopback port with a temporary data dir and the per-client
websocket limits raised (every client of a load bench comes from 127.0.0.1); its JSON log
lines go to ``<data dir>/server.err``. ``Server.stats()`` reads the gunicorn master and its
workers in /proc: CPU seconds (user + system), RSS, threads, open fds.

Environment: ``STREAMSCOPE_BENCH_LAUNCHER=file.py`` starts the server as ``python file.py serve
...`` instead of ``python -m app.cli serve ...`` (a script that patches the app and then calls
``app.cli.main(sys.argv[1:])``: a change measured before it is made);
``STREAMSCOPE_BENCH_KEEP=1`` keeps the servers' data directories.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import IO, Any

from kit import ROOT
from kit.cleanup import track, untrack
from kit.procfs import children, proc_stat
from tests.live_server import free_port

# What serves and what the load benches' clients use: their versions go in the machine line.
PACKAGES = ("gunicorn", "flask", "simple-websocket", "flask-sock", "websockets", "orjson")
# Every client of a bench is on loopback, one address: its per-address shares are lifted, so
# what is measured is the server's capacity (the shares have their own tests).
RAISED_LIMITS = {
    "STREAMSCOPE_WORK_PER_CLIENT": "100000",
    "STREAMSCOPE_WS_PER_CLIENT": "100000",
    "STREAMSCOPE_WS_RATE": "100000",
    "STREAMSCOPE_WS_BURST": "100000",
}


def http_get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def upload(
    port: int, data: bytes, title: str, compress: bool = False, timeout: float = 300
) -> tuple[int, dict[str, Any], float]:
    """``POST /api/captures`` with the raw bytes (gzipped first with ``compress``): the
    status, the JSON answer and the seconds it took."""
    body = gzip.compress(data, compresslevel=1) if compress else data
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST",
            f"/api/captures?title={urllib.parse.quote(title)}",
            body=body,
            headers={"Content-Type": "text/event-stream"},
        )
        response = conn.getresponse()
        answer = response.read()
    finally:
        conn.close()
    try:
        parsed = json.loads(answer)
    except ValueError:
        parsed = {"raw": answer[:200].decode(errors="replace")}
    return response.status, parsed, time.monotonic() - t0


class Server:
    """``streamscope serve --production`` on a free loopback port."""

    def __init__(
        self,
        threads: int,
        workers: int = 1,
        env: dict[str, str] | None = None,
        data_dir: Path | None = None,
    ) -> None:
        self.threads = threads
        self.workers = workers
        self.env = {**RAISED_LIMITS, **(env or {})}
        self._tmp = tempfile.mkdtemp(prefix="streamscope-load-") if data_dir is None else None
        self.data_dir = Path(data_dir or self._tmp or "")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self._files: list[IO[bytes]] = []

    @property
    def args(self) -> list[str]:
        launcher = os.environ.get("STREAMSCOPE_BENCH_LAUNCHER")
        head = [launcher] if launcher else ["-m", "app.cli"]
        return [
            *head, "serve", "--production", "--workers", str(self.workers),
            "--threads", str(self.threads), "--port", str(self.port),
            "--data-dir", str(self.data_dir),
        ]  # fmt: skip

    def describe(self) -> str:
        env = " ".join(f"{k}={v}" for k, v in self.env.items())
        return f"{env} python {' '.join(self.args)}"

    def start(self) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._files = [(self.data_dir / name).open("wb") for name in ("server.out", "server.err")]
        self.process = subprocess.Popen(
            [sys.executable, *self.args],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
            stdout=self._files[0],
            stderr=self._files[1],
            stdin=subprocess.DEVNULL,
        )
        track(self)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log()[-2000:]}")
            with contextlib.suppress(OSError):
                status, _ = http_get(self.port, "/healthz", timeout=2)
                if status == 200 and self.worker_pids():
                    return self
            time.sleep(0.1)
        raise RuntimeError("server did not answer /healthz in 30 s")

    def healthz(self) -> dict[str, Any]:
        status, body = http_get(self.port, "/healthz")
        data: dict[str, Any] = json.loads(body)
        data["http_status"] = status
        return data

    def worker_pids(self) -> list[int]:
        return children(self.process.pid) if self.process else []

    def stats(self) -> dict[str, Any]:
        """Master and workers: CPU seconds, RSS, threads, fds (workers summed and listed)."""
        assert self.process is not None
        master = proc_stat(self.process.pid) or {}
        workers = [s for s in (proc_stat(p) for p in self.worker_pids()) if s]

        def total(key: str) -> Any:
            return sum(w.get(key, 0) for w in workers)

        return {
            "t": time.monotonic(),
            "master": master,
            "workers": workers,
            "cpu_s": master.get("cpu_s", 0.0) + total("cpu_s"),
            "worker_cpu_s": total("cpu_s"),
            "worker_rss": total("rss"),
            "worker_threads": total("threads"),
            "worker_fds": total("fds"),
            "worker_rss_peak": total("rss_peak"),
        }

    def wait_idle(self, timeout: float = 30) -> dict[str, Any]:
        """Until /healthz says no websocket is open (and no live run)."""
        deadline = time.monotonic() + timeout
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                health = self.healthz()
                if health.get("websockets") == 0 and health.get("live_runs") == 0:
                    return health
            time.sleep(0.2)
        return health

    def log(self) -> str:
        path = self.data_dir / "server.err"
        return path.read_text(errors="replace") if path.exists() else ""

    def log_events(self, name: str = "stream") -> list[dict[str, Any]]:
        out = []
        for line in self.log().splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("event") == name:
                    out.append(record)
        return out

    def py_spy_dump(self) -> str:
        """``py-spy dump`` of each worker (empty when py-spy is missing)."""
        out = []
        for pid in self.worker_pids():
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                done = subprocess.run(
                    ["py-spy", "dump", "--pid", str(pid)],
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                out.append(done.stdout + done.stderr)
        return "\n".join(out)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # gunicorn: graceful stop (graceful_timeout 15 s)
            try:
                self.process.wait(timeout=25)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for file in self._files:
            file.close()
        untrack(self)
        if self._tmp is not None and not os.environ.get("STREAMSCOPE_BENCH_KEEP"):
            shutil.rmtree(self._tmp, ignore_errors=True)
