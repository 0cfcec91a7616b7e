"""Shared pieces of the load and soak benchmarks (``bench/load_*.py``, ``bench/bench_load.py``).

Everything runs on loopback, on free ports, and is stopped at the end:

* ``Server``: ``python -m app.cli serve --production --threads T`` (gunicorn gthread) in a
  subprocess with a temporary data dir and the per-client websocket limits raised (every
  client here comes from 127.0.0.1); its JSON log lines go to ``<data dir>/server.err``.
  ``Server.stats()`` reads ``/proc/<pid>/stat`` and ``/proc/<pid>/status`` of the gunicorn
  master and its worker children: CPU seconds (user + system), RSS, threads, open fds.
* ``Fake``: ``tests/fake_upstream.py``'s OpenAI-compatible server in its own process (so that
  its writes keep their pace whatever the clients do), with one more model for these benches:
  ``gate:<name>:<per second>:<count>`` sends the response headers, waits until
  ``GET /bench/go/<name>`` (so every viewer can attach first), then writes like ``rate:``:
  ``count`` chunks at that rate, tokens ``"t0 "``, ``"t1 "``, ..., each with ``x_sent_ms``
  (``time.time() * 1000`` just before the write).
* ``Worker``: a client process (``python bench/loadkit.py worker ROLE``) running many
  websocket clients at once on one asyncio loop (the ``websockets`` library's asyncio client);
  it reports JSON lines on stdout (``ready``, ``result``) and takes ``go`` on stdin. Each
  result carries the process's own CPU seconds and its event-loop lag (a 10 ms ticker's
  oversleep), to tell when the client, not the server, is the bottleneck. Roles:
  ``starter`` (starts a live run and reads it to the end), ``follow`` (viewers on a live run's
  share link: seq continuity, tokens in order, lateness from ``x_sent_ms``; with ``lean`` a
  minimal frame parser instead of ``websockets``, see ``_LeanViewer``), ``replay`` (viewers
  opening a capture at once: time to the first ``events`` and to ``end``), ``replayloop``
  (viewers replaying a capture again and again for a while: events per second), ``churn``
  (connect, open a demo, read to ``end``, close, N times) and ``stall`` (raw sockets with a
  4 KiB receive buffer that open a source and never read). Large ``events`` batches are
  checked on their text (``"seq":N`` in order, counted) rather than parsed whole, so that the
  client keeps up.

Environment: ``STREAMSCOPE_BENCH_LAUNCHER=file.py`` starts the server as ``python file.py serve
...`` instead of ``python -m app.cli serve ...`` (a script that patches the app and then calls
``app.cli.main(sys.argv[1:])``: a change measured before it is made); ``STREAMSCOPE_BENCH_OUT``
is where the JSON results go (default ``bench/out``); ``STREAMSCOPE_BENCH_KEEP=1`` keeps the
servers' data directories (their ``server.err`` has the JSON log lines).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import platform
import queue
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KIT = Path(__file__).resolve()
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.protocol import SUBPROTOCOL  # noqa: E402
from tests.live_server import free_port  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
RAISED_LIMITS = {
    "STREAMSCOPE_WS_PER_CLIENT": "100000",
    "STREAMSCOPE_WS_RATE": "100000",
    "STREAMSCOPE_WS_BURST": "100000",
}


# ---------------------------------------------------------------------------------- small tools
def pct(values: list[float], q: float) -> float:
    """Percentile with linear interpolation (q in 0..100); nan for no values."""
    if not values:
        return float("nan")
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    k = (len(data) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def fmt_ms(value: float) -> str:
    if value != value:  # nan
        return "n/a"
    return f"{value:.1f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def fmt_s(value: float) -> str:
    return f"{value:.2f} s"


def fmt_mb(nbytes: float) -> str:
    return f"{nbytes / 1048576:.1f} MiB"


def ratio(a: float, b: float) -> str:
    if not b or a != a or b != b:
        return "-"
    return f"{a / b:.2f}x"


def http_get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


class Table:
    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[tuple[str, str, str, str, str, str]] = []
        self.failed: list[str] = []

    def row(
        self,
        measure: str,
        value: str,
        baseline: str = "",
        ratio_text: str = "",
        target: str = "",
        ok: bool | None = None,
    ) -> None:
        mark = "-" if ok is None else ("PASS" if ok else "FAIL")
        if ok is False:
            self.failed.append(measure)
        self.rows.append((measure, value, baseline, ratio_text, target or "(information)", mark))

    def render(self) -> str:
        lines = [
            f"### {self.title}",
            "",
            "| measure | value | baseline | ratio | target | pass |",
            "|---|---|---|---|---|---|",
        ]
        lines += ["| " + " | ".join(cell.replace("|", "/") for cell in r) + " |" for r in self.rows]
        return "\n".join(lines)


def command_line() -> str:
    return "python " + " ".join(
        shlex.quote(a) for a in [os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]]
    )


def machine_info() -> str:
    import flask
    import gunicorn
    import orjson
    import simple_websocket  # noqa: F401
    import websockets

    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f", {int(line.split()[1]) / 1048576:.1f} GiB RAM"
    from importlib.metadata import version

    return (
        f"machine: {model or platform.machine()}, cpu_count={os.cpu_count()}{mem}, "
        f"{platform.system()} {platform.release()}; Python {platform.python_version()}, "
        f"gunicorn {gunicorn.__version__}, Flask {flask.__version__}, "
        f"simple-websocket {version('simple-websocket')}, flask-sock {version('flask-sock')}, "
        f"websockets {websockets.__version__} (client), orjson {orjson.__version__}; "
        f"loadavg {'/'.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def header(title: str) -> None:
    print(f"## {title}\n")
    print(f"command: `{command_line()}` (cwd {os.getcwd()})")
    print(machine_info())
    print()


def save_json(name: str, data: dict[str, Any]) -> Path:
    """``bench/out/load_<name>.json`` (or under ``STREAMSCOPE_BENCH_OUT``)."""
    out = Path(os.environ.get("STREAMSCOPE_BENCH_OUT", ROOT / "bench" / "out"))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"load_{name}.json"
    path.write_text(json.dumps(data, indent=1, default=str))
    return path


# ---------------------------------------------------------------------------------- /proc
def proc_stat(pid: int) -> dict[str, Any] | None:
    """CPU seconds, RSS bytes, threads and open fds of one process (None when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, FileNotFoundError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    info: dict[str, Any] = {"pid": pid, "cpu_s": (utime + stime) / TICK, "fds": fds}
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key == "VmRSS":
            info["rss"] = int(value.split()[0]) * 1024
        elif key == "VmHWM":
            info["rss_peak"] = int(value.split()[0]) * 1024
        elif key == "Threads":
            info["threads"] = int(value)
    return info


def children(pid: int) -> list[int]:
    kids: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                kids += [
                    int(k) for k in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                ]
    return kids


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    parts = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts) - idle, sum(parts)


def all_cpu() -> dict[int, tuple[float, str]]:
    """CPU seconds of every process on the machine, with its command line (short)."""
    out: dict[int, tuple[float, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{name}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            cmd = (
                Path(f"/proc/{name}/cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
            )
            out[int(name)] = ((int(fields[11]) + int(fields[12])) / TICK, cmd.strip()[:90])
    return out


class CpuWindow:
    """Machine CPU use between ``start`` and ``stop`` (fraction of all cores), and which
    processes that are not this bench's used it (``others``: a shared machine's load)."""

    def start(self) -> CpuWindow:
        self.t0, self.m0, self.p0 = time.monotonic(), machine_cpu(), all_cpu()
        return self

    def stop(self, ours: set[int] | None = None) -> dict[str, Any]:
        busy, total = machine_cpu()
        p1 = all_cpu()
        wall = time.monotonic() - self.t0
        used = (busy - self.m0[0]) / max(1, total - self.m0[1])
        ours = (ours or set()) | {os.getpid()} | {t.pid for t in _started if hasattr(t, "pid")}
        for thing in _started:
            process = getattr(thing, "process", None)
            if process is not None:
                ours |= {process.pid, *children(process.pid)}
        others = []
        for pid, (cpu, cmd) in p1.items():
            if pid in ours:
                continue
            delta = cpu - self.p0.get(pid, (0.0, ""))[0] if pid in self.p0 else cpu
            if delta >= 0.05 * wall:
                others.append((round(delta, 1), pid, cmd))
        others.sort(reverse=True)
        return {
            "wall_s": wall,
            "machine_busy": used,
            "machine_cpu_s": used * wall * (os.cpu_count() or 1),
            "others": others[:3],
            "others_cpu_s": sum(o[0] for o in others),
        }


def others_text(machine: dict[str, Any]) -> str:
    """Other processes' CPU during a phase (not this bench's), for the reader."""
    if not machine.get("others"):
        return "none above 5% of a core"
    return "; ".join(f"{cpu:.1f} s pid {pid} `{cmd[:60]}`" for cpu, pid, cmd in machine["others"])


# ---------------------------------------------------------------------------------- the server
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
        self._tmp: str | None = None
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="streamscope-load-")
            data_dir = Path(self._tmp)
        self.data_dir = Path(data_dir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.process: subprocess.Popen | None = None

    @property
    def args(self) -> list[str]:
        # STREAMSCOPE_BENCH_LAUNCHER=file.py runs ``python file.py serve ...`` instead of
        # ``python -m app.cli serve ...``: a script that patches the app, then calls
        # ``app.cli.main(sys.argv[1:])``, measures a change before it is made.
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
        self._out = (self.data_dir / "server.out").open("wb")
        self._err = (self.data_dir / "server.err").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, *self.args],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
            stdout=self._out,
            stderr=self._err,
            stdin=subprocess.DEVNULL,
        )
        _started.append(self)
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
        data = json.loads(body)
        data["http_status"] = status
        return data

    def worker_pids(self) -> list[int]:
        return children(self.process.pid) if self.process else []

    def stats(self) -> dict[str, Any]:
        """Master and workers: CPU seconds, RSS, threads, fds (workers summed and listed)."""
        assert self.process is not None
        master = proc_stat(self.process.pid) or {}
        workers = [s for s in (proc_stat(p) for p in self.worker_pids()) if s]
        total = lambda key: sum(w.get(key, 0) for w in workers)  # noqa: E731
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
        for name in ("_out", "_err"):
            with contextlib.suppress(Exception):
                getattr(self, name).close()
        with contextlib.suppress(ValueError):
            _started.remove(self)
        if self._tmp is not None and not os.environ.get("STREAMSCOPE_BENCH_KEEP"):
            shutil.rmtree(self._tmp, ignore_errors=True)


_started: list[Any] = []


def stop_everything() -> None:
    for thing in list(reversed(_started)):
        with contextlib.suppress(Exception):
            thing.stop()


def _on_signal(signum: int, _frame: Any) -> None:
    stop_everything()
    raise SystemExit(128 + signum)


def install_cleanup() -> None:
    import atexit

    atexit.register(stop_everything)
    signal.signal(signal.SIGTERM, _on_signal)


def server_cpu_line(label: str, before: dict[str, Any], after: dict[str, Any], wall: float) -> str:
    cpu = after["cpu_s"] - before["cpu_s"]
    return f"{label}: server CPU {cpu:.2f} s in {wall:.1f} s ({100 * cpu / max(wall, 1e-9):.0f}% of one core)"


# ---------------------------------------------------------------------------------- client processes
class Worker:
    """One client process; talks JSON lines on stdout, takes ``go`` on stdin."""

    def __init__(self, role: str, spec: dict[str, Any], name: str | None = None) -> None:
        self.role = role
        self.name = name or role
        self._errlog = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the worker)
        self.process = subprocess.Popen(
            [sys.executable, str(KIT), "worker", role],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errlog,
            text=True,
            bufsize=1,
        )
        _started.append(self)
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
                self._errlog.seek(0)
                err = self._errlog.read().decode(errors="replace")[-3000:]
                raise RuntimeError(f"worker {self.name} exited before {event!r}: {err}")
            self.seen.append(line)

    def stderr(self) -> str:
        self._errlog.seek(0)
        return self._errlog.read().decode(errors="replace")

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
        with contextlib.suppress(ValueError):
            _started.remove(self)
        with contextlib.suppress(OSError):
            self._errlog.close()


class Fake:
    """The fake upstream in its own process (``gate:`` added, see the module docstring)."""

    def __init__(self) -> None:
        self.worker = Worker("fake", {})
        info = self.worker.wait("fake", 20)
        self.url = info["url"]
        self.port = info["port"]
        self.pid = self.worker.process.pid
        _started.append(self)

    def go(self, gate: str) -> None:
        status, _ = http_get(self.port, f"/bench/go/{gate}")
        assert status == 200

    def stop(self) -> None:
        self.worker.stop()
        with contextlib.suppress(ValueError):
            _started.remove(self)


def split(total: int, parts: int) -> list[int]:
    parts = max(1, min(parts, total))
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def split_lateness(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Split each chunk's lateness at the server's read of it.

    The server stamps each upstream read with ``t`` (ms since the run's request, monotonic);
    ``t - x_sent_ms`` is the read's lateness plus a constant (the request's start on the wall
    clock), taken as the smallest value (the best read counts as 0 ms late). Chunk i's
    lateness = (fake's write -> server's read) + (server's read -> viewer's recv)."""
    reads = next((v["reads"] for v in views if v.get("reads")), [])
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
    return {
        "read_p50": pct(read_late, 50),
        "read_p95": pct(read_late, 95),
        "read_p99": pct(read_late, 99),
        "after_p50": pct(after, 50),
        "after_p95": pct(after, 95),
        "after_p99": pct(after, 99),
    }


def client_cpu(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The client processes' own CPU (and whether one of them was saturated)."""
    cpu = [r["client"]["cpu_s"] for r in results]
    busy = [r["client"]["cpu_s"] / max(r["client"]["wall_s"], 1e-9) for r in results]
    lag95 = [r["client"]["loop_lag_p95_ms"] for r in results]
    lagmax = [r["client"]["loop_lag_max_ms"] for r in results]
    return {
        "procs": len(results),
        "cpu_s": sum(cpu),
        "busiest": max(busy) if busy else 0.0,
        "loop_lag_p95_ms": max(lag95) if lag95 else 0.0,
        "loop_lag_max_ms": max(lagmax) if lagmax else 0.0,
    }


def client_row(table: Table, label: str, c: dict[str, Any], wall: float) -> None:
    saturated = c["busiest"] >= 0.85
    table.row(
        f"client ({label}): CPU, busiest process, event-loop lag p95/max",
        f"{c['cpu_s']:.1f} s in {c['procs']} proc(s) over {wall:.1f} s; busiest {100 * c['busiest']:.0f}% "
        f"of a core; lag {c['loop_lag_p95_ms']:.1f}/{c['loop_lag_max_ms']:.0f} ms"
        + (" (client saturated: its numbers include client delay)" if saturated else ""),
    )


# ================================================================================== worker side
def _worker_main(role: str) -> None:
    spec = json.loads(sys.stdin.readline() or "{}")
    if role == "fake":
        _fake_main()
        return
    asyncio.run(_async_worker(role, spec))


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def _fake_main() -> None:
    from tests import fake_upstream
    from tests.fake_upstream import FakeUpstream, Handler, chunk

    class GateHandler(Handler):
        def do_GET(self) -> None:
            if self.path.startswith("/bench/go/"):
                self.server.bench_gate(self.path.rsplit("/", 1)[1]).set()
                self._whole(200, "text/plain", b"go")
                return
            super().do_GET()

        def _do_gate(self, arg: str, body: dict) -> None:
            name, per_second, count = arg.split(":")
            interval, total = 1 / float(per_second), int(count)
            self._start()
            if not self.server.bench_gate(name).wait(300):
                return
            if not self._paced_tokens(interval, total):
                return
            self._write(chunk(None, "stop"))
            self._write(b"data: [DONE]\n\n")
            self._finish()

    assert fake_upstream.Handler is Handler
    fake = FakeUpstream()
    fake.RequestHandlerClass = GateHandler
    gates: dict[str, threading.Event] = {}
    lock = threading.Lock()

    def bench_gate(name: str) -> threading.Event:
        with lock:
            return gates.setdefault(name, threading.Event())

    fake.bench_gate = bench_gate  # type: ignore[attr-defined]
    fake.start()
    emit("fake", url=fake.url, port=fake.port)
    sys.stdin.read()  # until the parent closes stdin
    fake.stop()


# ------------------------------------------------------------------ asyncio clients
class LagMonitor:
    """Event-loop lag: how late a 10 ms sleep wakes up."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append((time.perf_counter() - t - 0.01) * 1000)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> dict[str, float]:
        if self._task:
            self._task.cancel()
        return {
            "loop_lag_p95_ms": round(pct(self.lags, 95), 2),
            "loop_lag_max_ms": round(max(self.lags, default=0.0), 2),
        }


def _cpu_now() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def ws_connect(port: int, open_timeout: float = 60) -> Any:
    from websockets.asyncio.client import connect

    return await connect(
        f"ws://127.0.0.1:{port}/ws",
        origin=f"http://127.0.0.1:{port}",
        subprotocols=[SUBPROTOCOL],
        compression=None,
        max_size=None,
        proxy=None,
        ping_interval=None,
        open_timeout=open_timeout,
        close_timeout=2,
    )


def _describe(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    if response is not None and getattr(response, "status_code", None):
        body = bytes(getattr(response, "body", b"") or b"")[:200].decode(errors="replace")
        return f"HTTP {response.status_code} {body}"
    return f"{type(exc).__name__}: {exc}"[:300]


async def _stdin_line() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def _async_worker(role: str, spec: dict[str, Any]) -> None:
    import orjson

    loads = orjson.loads
    lag = LagMonitor()
    lag.start()
    cpu0, wall0 = _cpu_now(), time.monotonic()
    port = spec["port"]

    def client_info() -> dict[str, Any]:
        return {
            "cpu_s": round(_cpu_now() - cpu0, 3),
            "wall_s": round(time.monotonic() - wall0, 3),
            **lag.stop(),
        }

    # ------------------------------------------------------------- starter
    if role == "starter":
        ws = await ws_connect(port)
        await ws.send(
            json.dumps(
                {
                    "type": "start",
                    "base_url": spec["base_url"],
                    "headers": {},
                    "body": {
                        "model": spec["model"],
                        "messages": [{"role": "user", "content": "hi"}],
                    },
                }
            )
        )
        end: dict[str, Any] | None = None
        events = 0
        try:
            while True:
                message = loads(await asyncio.wait_for(ws.recv(), spec.get("timeout", 300)))
                kind = message["type"]
                if kind == "status" and message.get("state") == "started":
                    emit("started", capture=message["capture"])
                elif kind == "events":
                    events += len(message["events"])
                elif kind in ("end", "error"):
                    end = message
                    break
        except Exception as exc:
            end = {"type": "failed", "error": _describe(exc)}
        with contextlib.suppress(Exception):
            await ws.close()
        emit("result", end=end, events=events, client=client_info())
        return

    # ------------------------------------------------------------- follow, lean client
    if role == "follow" and spec.get("lean"):
        await _lean_follow(spec, client_info)
        return

    # ------------------------------------------------------------- follow
    if role == "follow":
        n, capture = spec["n"], spec["capture"]
        attached = 0
        all_attached = asyncio.Event()
        count = spec.get("count")

        async def viewer(i: int) -> dict[str, Any]:
            nonlocal attached
            out: dict[str, Any] = {
                "ok": False,
                "seq_errors": 0,
                "token_errors": 0,
                "events": 0,
                "messages": 0,
            }
            lateness: list[float] = []
            reads: list[float] = []
            t0 = time.monotonic()
            counted = False
            try:
                ws = await ws_connect(port)
                await ws.send(json.dumps({"type": "open", "source": {"capture": capture}}))
                seq = 0
                texts: list[str] = []
                first_t = last_t = None
                while True:
                    raw = await asyncio.wait_for(ws.recv(), spec.get("timeout", 120))
                    now = time.time() * 1000
                    message = loads(raw)
                    out["messages"] += 1
                    kind = message["type"]
                    if kind == "capture" and not counted:
                        counted = True
                        attached += 1
                        out["attach_s"] = round(time.monotonic() - t0, 3)
                        if attached == n:
                            all_attached.set()
                    elif kind == "events":
                        # list comprehensions, not a Python loop per event: the client must
                        # keep up with 200 viewers x 200 messages/s on a 2-core machine
                        evs = message["events"]
                        k = len(evs)
                        if not k:
                            continue
                        out["events"] += k
                        seqs = [e["seq"] for e in evs]
                        if seqs != list(range(seq, seq + k)):
                            out["seq_errors"] += 1
                        seq = seqs[-1] + 1
                        extras = [
                            e for e in evs if e["kind"] == "extra" and "x_sent_ms" in e["fields"]
                        ]
                        if extras:
                            lateness.extend([now - e["fields"]["x_sent_ms"] for e in extras])
                            if i == 0:  # the server's read time t minus the write time
                                reads.extend([e["t"] - e["fields"]["x_sent_ms"] for e in extras])
                            if first_t is None:
                                first_t = now
                            last_t = now
                        texts.extend([e["text"] for e in evs if e["kind"] == "text"])
                    elif kind in ("end", "error"):
                        out["end"] = message.get("reason") or message.get("code")
                        break
                token = len(texts)
                out["token_errors"] = sum(1 for j, text in enumerate(texts) if text != f"t{j} ")
                out["tokens"] = token
                out["ok"] = (
                    out.get("end") == "done"
                    and out["seq_errors"] == 0
                    and out["token_errors"] == 0
                    and (count is None or token == count)
                )
                if first_t is not None and last_t is not None and last_t > first_t:
                    out["rate"] = (len(lateness) - 1) / ((last_t - first_t) / 1000)
                with contextlib.suppress(Exception):
                    await ws.close()
            except Exception as exc:
                out["error"] = _describe(exc)
                if not counted:
                    attached += 1  # a failure counts as attached, so nobody waits for it
                    if attached == n:
                        all_attached.set()
            out["lateness"] = [round(x, 2) for x in lateness]
            if i == 0:
                out["reads"] = [round(x, 2) for x in reads]
            return out

        tasks = [asyncio.create_task(viewer(i)) for i in range(n)]
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(all_attached.wait(), spec.get("attach_timeout", 120))
        emit("ready", attached=attached)
        results = await asyncio.gather(*tasks)
        emit("result", viewers=results, client=client_info())
        return

    # ------------------------------------------------------------- replay (all at once, on go)
    if role == "replay":
        n, source = spec["n"], spec["source"]
        emit("ready")
        await _stdin_line()  # go

        async def viewer(i: int) -> dict[str, Any]:
            out: dict[str, Any] = {
                "ok": False,
                "seq_errors": 0,
                "events": 0,
                "messages": 0,
                "bytes": 0,
            }
            t0 = time.monotonic()
            try:
                ws = await ws_connect(port)
                out["connect_ms"] = round((time.monotonic() - t0) * 1000, 2)
                await ws.send(json.dumps({"type": "open", "source": source}))
                expected: dict[int, int] = {}
                seqs: dict[int, int] = {}
                while True:
                    raw = await asyncio.wait_for(ws.recv(), spec.get("timeout", 120))
                    out["messages"] += 1
                    out["bytes"] += len(raw)
                    head = _EVENTS_HEAD.match(raw)
                    if head:  # an events batch: seq checked on the text, not parsed whole
                        if "first_events_ms" not in out:
                            out["first_events_ms"] = round((time.monotonic() - t0) * 1000, 2)
                        stream = int(head.group(1))
                        seq = seqs.get(stream, 0)
                        got = [int(x) for x in _SEQ_TEXT.findall(raw)]
                        if got != list(range(seq, seq + len(got))):
                            out["seq_errors"] += 1
                        seqs[stream] = seq + len(got)
                        out["events"] += len(got)
                        continue
                    message = loads(raw)
                    kind = message["type"]
                    if kind == "capture":
                        expected = {s["index"]: s["events"] for s in message["streams"]}
                    elif kind in ("end", "error"):
                        out["end_ms"] = round((time.monotonic() - t0) * 1000, 2)
                        out["end"] = message.get("reason") or message.get("code")
                        break
                out["ok"] = (
                    out.get("end") == "complete"
                    and out["seq_errors"] == 0
                    and out["events"] == sum(expected.values())
                )
                out["expected_events"] = sum(expected.values())
                with contextlib.suppress(Exception):
                    await ws.close()
            except Exception as exc:
                out["error"] = _describe(exc)
            return out

        results = await asyncio.gather(*(viewer(i) for i in range(n)))
        emit("result", viewers=results, client=client_info())
        return

    # ------------------------------------------------------------- replayloop (events/s)
    if role == "replayloop":
        n, source, duration = spec["n"], spec["source"], spec["duration"]
        emit("ready")
        await _stdin_line()  # go
        t_go = time.monotonic()
        deadline = t_go + duration

        async def looper(i: int) -> dict[str, Any]:
            out: dict[str, Any] = {"events": 0, "replays": 0, "errors": []}
            while time.monotonic() < deadline:
                try:
                    ws = await ws_connect(port)
                    await ws.send(json.dumps({"type": "open", "source": source}))
                    while True:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            break
                        try:
                            raw = await asyncio.wait_for(ws.recv(), left)
                        except TimeoutError:
                            break
                        if raw.startswith('{"type":"events"'):  # count without parsing
                            out["events"] += raw.count('"seq":')
                            continue
                        message = loads(raw)
                        if message["type"] == "end":
                            out["replays"] += 1
                            break
                        elif message["type"] == "error":
                            out["errors"].append(message.get("code"))
                            break
                    with contextlib.suppress(Exception):
                        await ws.close()
                except Exception as exc:
                    out["errors"].append(_describe(exc))
                    await asyncio.sleep(0.1)
            out["errors"] = out["errors"][:5]
            return out

        results = await asyncio.gather(*(looper(i) for i in range(n)))
        emit("result", viewers=results, seconds=time.monotonic() - t_go, client=client_info())
        return

    # ------------------------------------------------------------- churn
    if role == "churn":
        cycles, concurrency, demo = spec["cycles"], spec["concurrency"], spec["demo"]
        emit("ready")
        await _stdin_line()
        todo = iter(range(cycles))
        durations: list[float] = []
        failures: dict[str, int] = {}
        t_go = time.monotonic()

        async def cycle_runner() -> None:
            for _ in todo:
                t0 = time.monotonic()
                try:
                    ws = await ws_connect(port)
                    await ws.send(json.dumps({"type": "open", "source": {"demo": demo}}))
                    while True:
                        message = loads(await asyncio.wait_for(ws.recv(), 30))
                        if message["type"] == "end":
                            break
                        if message["type"] == "error":
                            raise RuntimeError(f"error {message.get('code')}")
                    await ws.close()
                    durations.append((time.monotonic() - t0) * 1000)
                except Exception as exc:
                    key = _describe(exc)[:120]
                    failures[key] = failures.get(key, 0) + 1

        await asyncio.gather(*(cycle_runner() for _ in range(concurrency)))
        emit(
            "result",
            ok=len(durations),
            failures=failures,
            seconds=time.monotonic() - t_go,
            cycle_p50_ms=pct(durations, 50),
            cycle_p95_ms=pct(durations, 95),
            client=client_info(),
        )
        return

    # ------------------------------------------------------------- stall (raw sockets, never read)
    if role == "stall":
        n, source = spec["n"], spec["source"]
        reopen = spec.get("reopen_s")  # open a new stuck connection per slot this often
        rcvbuf = spec.get("rcvbuf", 4096)
        socks: list[socket.socket] = []
        opened = failed = 0

        def open_one() -> None:
            nonlocal opened, failed
            try:
                socks.append(stalled_socket(port, source, rcvbuf))
                opened += 1
            except OSError:
                failed += 1

        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(None, open_one) for _ in range(n)))
        emit("ready", opened=opened, failed=failed)
        stop = asyncio.create_task(_stdin_line())
        while True:
            done, _ = await asyncio.wait({stop}, timeout=reopen)
            if done:
                break
            await asyncio.gather(*(loop.run_in_executor(None, open_one) for _ in range(n)))
        for s in socks:
            with contextlib.suppress(OSError):
                s.close()
        emit("result", opened=opened, failed=failed, client=client_info())
        return

    raise SystemExit(f"unknown role {role}")


_EVENTS_HEAD = re.compile(r'\{"type":"events","stream":(\d+),')
_SEQ_TEXT = re.compile(r'"seq":(\d+)')
_SEQ = re.compile(rb'"seq":(\d+)')
_EXTRA = re.compile(
    rb'"t":([-0-9.eE+]+),"scope":"chunk","choice":null,"fields":\{"x_sent_ms":([-0-9.eE+]+)\}'
)
_TEXT = re.compile(rb'"text":"t(\d+) "')


class _LeanViewer(asyncio.Protocol):
    """A minimal websocket client (``--client lean``): frames parsed in bulk per socket read,
    events checked with regular expressions on the raw JSON (``seq`` continuity, tokens
    ``tN`` in order, ``x_sent_ms`` and the server's ``t``), one receipt time per read. It
    costs a fraction of the ``websockets`` client per message, to tell the server's delay
    from the client's on a small machine."""

    def __init__(self, port: int, capture: str, on_attach: Any, record_reads: bool) -> None:
        self.port, self.capture, self.on_attach = port, capture, on_attach
        self.record_reads = record_reads
        self.buf = bytearray()
        self.upgraded = False
        self.done: asyncio.Future = asyncio.get_running_loop().create_future()
        self.out: dict[str, Any] = {
            "ok": False,
            "seq_errors": 0,
            "token_errors": 0,
            "events": 0,
            "messages": 0,
        }
        self.lateness: list[float] = []
        self.reads: list[float] = []
        self.seq = 0
        self.token = 0
        self.first_t: float | None = None
        self.last_t: float | None = None
        self.attached = False

    def connection_made(self, transport: Any) -> None:
        import base64

        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\nOrigin: http://127.0.0.1:{self.port}\r\n\r\n"
            ).encode()
        )

    def _send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode]) + (
            bytes([0x80 | n]) if n < 126 else b"\xfe" + n.to_bytes(2, "big")
        )
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(head + mask + masked)

    def data_received(self, data: bytes) -> None:
        now = time.time() * 1000
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buf.startswith(b"HTTP/1.1 101"):
                self._finish(error=bytes(self.buf[:80]).decode(errors="replace"))
                return
            del self.buf[: end + 4]
            self.upgraded = True
            self._send(
                1, json.dumps({"type": "open", "source": {"capture": self.capture}}).encode()
            )
        buf, pos = self.buf, 0
        while len(buf) - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            n, head = b1 & 0x7F, 2
            if n == 126:
                if len(buf) - pos < 4:
                    break
                n, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
            elif n == 127:
                if len(buf) - pos < 10:
                    break
                n, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            if len(buf) - pos < head + n:
                break
            payload = bytes(buf[pos + head : pos + head + n])
            pos += head + n
            opcode = b0 & 0x0F
            if opcode == 9:
                self._send(10, payload)
            elif opcode == 8:
                self._finish()
                return
            elif opcode == 1:
                self._message(payload, now)
        del buf[:pos]

    def _message(self, payload: bytes, now: float) -> None:
        out = self.out
        out["messages"] += 1
        if payload.startswith(b'{"type":"events"'):
            seqs = [int(x) for x in _SEQ.findall(payload)]
            if seqs:
                out["events"] += len(seqs)
                if seqs != list(range(self.seq, self.seq + len(seqs))):
                    out["seq_errors"] += 1
                self.seq = seqs[-1] + 1
            tokens = [int(x) for x in _TEXT.findall(payload)]
            if tokens:
                if tokens != list(range(self.token, self.token + len(tokens))):
                    out["token_errors"] += 1
                self.token = tokens[-1] + 1
            extras = _EXTRA.findall(payload)
            if extras:
                self.lateness.extend([now - float(x) for _, x in extras])
                if self.record_reads:
                    self.reads.extend([float(t) - float(x) for t, x in extras])
                if self.first_t is None:
                    self.first_t = now
                self.last_t = now
            return
        import orjson

        message = orjson.loads(payload)
        kind = message.get("type")
        if kind == "capture" and not self.attached:
            self.attached = True
            self.on_attach()
        elif kind in ("end", "error"):
            out["end"] = message.get("reason") or message.get("code")
            self._finish()

    def _finish(self, error: str | None = None) -> None:
        if error:
            self.out["error"] = error
        if not self.done.done():
            self.done.set_result(None)
        with contextlib.suppress(Exception):
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.out.setdefault("error", f"connection lost: {exc}")
            self.done.set_result(None)


async def _lean_follow(spec: dict[str, Any], client_info: Any) -> None:
    n, capture, count, port = spec["n"], spec["capture"], spec.get("count"), spec["port"]
    loop = asyncio.get_running_loop()
    attached = 0
    all_attached = asyncio.Event()

    def on_attach() -> None:
        nonlocal attached
        attached += 1
        if attached == n:
            all_attached.set()

    async def viewer(i: int) -> dict[str, Any]:
        proto = _LeanViewer(port, capture, on_attach, i == 0)
        try:
            await loop.create_connection(lambda: proto, "127.0.0.1", port)
            await asyncio.wait_for(proto.done, spec.get("timeout", 300))
        except Exception as exc:
            proto.out["error"] = _describe(exc)
            if not proto.attached:
                on_attach()
        out = proto.out
        out["tokens"] = proto.token
        out["ok"] = (
            out.get("end") == "done"
            and out["seq_errors"] == 0
            and out["token_errors"] == 0
            and (count is None or proto.token == count)
        )
        if proto.first_t is not None and proto.last_t is not None and proto.last_t > proto.first_t:
            out["rate"] = (len(proto.lateness) - 1) / ((proto.last_t - proto.first_t) / 1000)
        out["lateness"] = [round(x, 2) for x in proto.lateness]
        if i == 0:
            out["reads"] = [round(x, 2) for x in proto.reads]
        return out

    tasks = [asyncio.create_task(viewer(i)) for i in range(n)]
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(all_attached.wait(), spec.get("attach_timeout", 120))
    emit("ready", attached=attached)
    results = await asyncio.gather(*tasks)
    emit("result", viewers=results, client=client_info())


def stalled_socket(port: int, source: dict[str, Any], rcvbuf: int = 4096) -> socket.socket:
    """A websocket that opens ``source`` and then never reads (4 KiB receive buffer)."""
    import base64

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect: small window
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(1024)
        if not data:
            raise OSError("closed during the handshake")
        head += data
    if not head.startswith(b"HTTP/1.1 101"):
        raise OSError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    payload = json.dumps({"type": "open", "source": source}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    length = len(payload)
    frame = b"\x81" + (
        bytes([0x80 | length]) if length < 126 else b"\xfe" + length.to_bytes(2, "big")
    )
    sock.sendall(frame + mask + masked)
    return sock  # and never read again


# ---------------------------------------------------------------------------------- uploads
def upload(
    port: int, data: bytes, title: str, timeout: float = 300
) -> tuple[int, dict[str, Any], float]:
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST",
            f"/api/captures?title={urllib.request.quote(title)}",
            body=data,
            headers={"Content-Type": "text/event-stream"},
        )
        response = conn.getresponse()
        body = response.read()
    finally:
        conn.close()
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = {"raw": body[:200].decode(errors="replace")}
    return response.status, parsed, time.monotonic() - t0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "worker":
        _worker_main(sys.argv[2])
    else:
        print(__doc__)
