"""Client processes, seen from the bench: start one, hand it work, read what it reports.

A ``Worker`` is ``python -m kit.clients ROLE`` (the roles: ``kit/clients``), or another
module that speaks the same JSON lines (``kit.fake``): the bench writes the role's spec as the
first line of its stdin and ``go`` when the role waits for it; the process writes one JSON
object a line on stdout (``ready``, ``started``, ``result``...). Also here: how the results of
many client processes are summed up for a table.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

from kit import BENCH
from kit.cleanup import track, untrack
from kit.cpu import CpuMeter, CpuUse
from kit.table import Table, pct


class Worker:
    """One client process; talks JSON lines on stdout, takes ``go`` on stdin."""

    def __init__(
        self, role: str, spec: dict[str, Any], name: str | None = None, module: str = "kit.clients"
    ) -> None:
        self.role = role
        self.name = name or role
        self._errlog = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the worker)
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, role],
            cwd=BENCH,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errlog,
            text=True,
            bufsize=1,
        )
        track(self)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send(json.dumps(spec))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with contextlib.suppress(ValueError):
                self.lines.put(json.loads(line))
        self.lines.put({"event": "exit"})

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError, OSError):
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()

    def wait(self, event: str, timeout: float) -> dict[str, Any]:
        """The next ``event`` line (other lines are kept for a later wait)."""
        for seen in self.seen:
            if seen.get("event") == event:
                self.seen.remove(seen)
                return seen
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"worker {self.name}: no {event!r} within {timeout:.0f} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line.get("event") == event:
                return line
            if line.get("event") == "exit":
                raise RuntimeError(f"worker {self.name} exited before {event!r}: {self.stderr()}")
            self.seen.append(line)

    def stderr(self) -> str:
        self._errlog.seek(0)
        return self._errlog.read().decode(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                assert self.process.stdin is not None
                self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        untrack(self)
        with contextlib.suppress(OSError):
            self._errlog.close()


def crew(role: str, spec: dict[str, Any], n: int, procs: int) -> list[Worker]:
    """``n`` clients of ``role`` shared out over ``procs`` processes (each spec with its ``n``)."""
    return [Worker(role, {**spec, "n": k}, f"{role}{i}") for i, k in enumerate(split(n, procs))]


def ready(workers: list[Worker], timeout: float = 30) -> list[dict[str, Any]]:
    """Each worker's ``ready`` line (a client process is ready once its clients are set up)."""
    return [w.wait("ready", timeout) for w in workers]


def go(workers: list[Worker]) -> None:
    for w in workers:
        w.send("go")


def results(workers: list[Worker], timeout: float) -> list[dict[str, Any]]:
    return [w.wait("result", timeout) for w in workers]


def stop_all(workers: list[Worker]) -> None:
    for w in workers:
        w.stop()


@dataclass
class Measured:
    """One timed phase of a crew: its results, every viewer, and what the server and the
    machine did meanwhile (``before`` and ``after`` are the server's stats)."""

    done: list[dict[str, Any]]
    views: list[dict[str, Any]]
    wall_s: float
    machine: CpuUse
    before: dict[str, Any]
    after: dict[str, Any]

    @property
    def server_cpu_s(self) -> float:
        return float(self.after["cpu_s"] - self.before["cpu_s"])


def measured(
    server: Any, role: str, spec: dict[str, Any], viewers: int, procs: int, timeout: float = 300
) -> Measured:
    """``viewers`` clients of ``role`` set up, let go at once, and waited for; the server's
    stats and the machine's CPU taken around them."""
    workers = crew(role, spec, viewers, procs)
    ready(workers)
    before, cpu = server.stats(), CpuMeter().start()
    t0 = time.monotonic()
    go(workers)
    done = results(workers, timeout)
    wall = time.monotonic() - t0
    machine = cpu.stop()
    after = server.stats()
    stop_all(workers)
    return Measured(done, all_viewers(done), wall, machine, before, after)


def run_once(role: str, spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One worker from start to result (a warm-up, or one short run): its result."""
    worker = Worker(role, spec)
    try:
        if role != "starter":  # a starter starts at once; the others wait for go
            ready([worker])
            go([worker])
        return worker.wait("result", timeout)
    finally:
        worker.stop()


def all_viewers(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every viewer's result, from every process."""
    return [v for r in results for v in r["viewers"]]


def failures(views: list[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """What went wrong for the first five viewers that were not ``ok``."""
    return [{k: v.get(k) for k in keys} for v in views if not v["ok"]][:5]


def split(total: int, parts: int) -> list[int]:
    """``total`` shared out over ``parts`` (at most ``total``) as evenly as can be."""
    parts = max(1, min(parts, total))
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def split_lateness(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Split each chunk's lateness at the server's read of it.

    The server stamps each upstream read with ``t`` (ms since the run's request, monotonic);
    ``t - x_sent_ms`` is the read's lateness plus a constant (the request's start on the wall
    clock), taken as the smallest value (the best read counts as 0 ms late). Chunk i's
    lateness = (fake's write -> server's read) + (server's read -> viewer's recv)."""
    reads: list[Any] = next((v["reads"] for v in views if v.get("reads")), [])
    if not reads:
        return {}
    floor = min(reads)
    read_late = [r - floor for r in reads]
    after = [
        late - read_late[i]
        for v in views
        for i, late in enumerate(v["lateness"])
        if i < len(read_late)
    ]
    out = {}
    for q in (50, 95, 99):
        out[f"read_p{q}"] = pct(read_late, q)
        out[f"after_p{q}"] = pct(after, q)
    return out


def client_cpu(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The client processes' own CPU (and whether one of them was saturated)."""
    clients = [r["client"] for r in results]
    return {
        "procs": len(results),
        "cpu_s": sum(c["cpu_s"] for c in clients),
        "busiest": max((c["cpu_s"] / max(c["wall_s"], 1e-9) for c in clients), default=0.0),
        "loop_lag_p95_ms": max((c["loop_lag_p95_ms"] for c in clients), default=0.0),
        "loop_lag_max_ms": max((c["loop_lag_max_ms"] for c in clients), default=0.0),
    }


def client_row(table: Table, label: str, c: dict[str, Any], wall: float) -> None:
    saturated = c["busiest"] >= 0.85
    table.row(
        f"client ({label}): CPU, busiest process, event-loop lag p95/max",
        f"{c['cpu_s']:.1f} s in {c['procs']} proc(s) over {wall:.1f} s; busiest {100 * c['busiest']:.0f}% "
        f"of a core; lag {c['loop_lag_p95_ms']:.1f}/{c['loop_lag_max_ms']:.0f} ms"
        + (" (client saturated: its numbers include client delay)" if saturated else ""),
    )
