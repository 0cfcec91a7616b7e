"""The rows of ``bench_parse.py`` against each capture's own floor (issue 16): ``inspect`` on
chat chunks with and without logprobs, growth from 100k to 1M chunks, one capture per dialect,
and opening a capture in the player (server side). Each compared pair runs in turns in the
same process (``interleaved``), best of ``repeat``; peak memory is traced in a child process
per measure (``bench_parse.py --mem-child``), file bytes loaded before tracing starts.

Targets are on CPU time (``time.process_time``): on this shared machine, wall-clock time also
counts the time other processes held the core; both are printed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gen_dialects
from kit.table import Table, fmt_mb, fmt_s

from app.captures import Limits, read_capture
from app.domain.collector import paused
from app.report import render, render_json, write_json
from app.services.frames import Prepared
from app.services.sources import Loaded, Sources
from app.settings import load
from app.web.ws.session import Session

MIB = 1024 * 1024
GROWTH_OVER_FLOOR = 1.05  # the 10.5x for 10x the chunks, over the floor's own growth
Timing = tuple[list[list[float]], list[list[float]]]


def interleaved(fns: list[Callable[[], Any]], repeat: int) -> Timing:
    """Each function's wall-clock and CPU times (``time.process_time``), the functions taking
    turns: what is compared ran under the same load (other processes share this machine; the
    CPU time leaves out the time this process waited for a core)."""
    walls: list[list[float]] = [[] for _ in fns]
    cpus: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            wall0, cpu0 = time.perf_counter(), time.process_time()
            result = fn()
            walls[i].append(time.perf_counter() - wall0)
            cpus[i].append(time.process_time() - cpu0)
            del result
    return walls, cpus


def peak(script: Path, path: Path, what: str, dialect: str | None = None) -> int:
    """Traced peak (bytes, file bytes excluded) of one measure, in a child process."""
    args = [sys.executable, str(script), "--mem-child", str(path), "--mem-what", what]
    if dialect:
        args += ["--mem-dialect", dialect]
    proc = subprocess.run(args, capture_output=True, text=True, check=True)
    return int(json.loads(proc.stdout.strip().splitlines()[-1])["peak"])


def inspect_json(data: bytes) -> int:
    """What ``streamscope inspect --json`` does after reading the file (``app.cli``): its
    output written, in pieces, to a file (here the null device), the collector paused until
    the capture is freed. Returns how many bytes were written."""
    written = 0
    with open(os.devnull, "wb") as sink, paused():

        def out(piece: bytes) -> None:
            nonlocal written
            written += len(piece)
            sink.write(piece)

        write_json(read_capture(data), out)
    return written


def inspect_readable(data: bytes) -> str:
    """What ``streamscope inspect`` does after reading the file, its output returned."""
    with paused():
        return render(read_capture(data), "capture")


# ---------------------------------------------------------------------------- chat, inspect
def chat_rows(
    table: Table,
    script: Path,
    label: str,
    path: Path,
    floor: Callable[[bytes], Any],
    time_target: float,
    mem_target: float,
    repeat: int,
) -> float:
    """Floor, ``inspect --json`` and ``inspect`` on one chat capture; returns --json CPU."""
    data = path.read_bytes()
    (f_w, j_w, r_w), (f_c, j_c, r_c) = interleaved(
        [lambda: floor(data), lambda: inspect_json(data), lambda: inspect_readable(data)], repeat
    )
    fw, fc = min(f_w), min(f_c)
    table.row(
        f"{label}: floor ({fmt_mb(len(data))})", f"{fmt_s(fw)} wall, {fmt_s(fc)} CPU", ok=None
    )
    for name, walls, cpus in (("inspect --json", j_w, j_c), ("inspect", r_w, r_c)):
        w, c = min(walls), min(cpus)
        table.row(
            f"{label}: {name}",
            f"{fmt_s(w)} wall ({w / fw:.2f}x), {fmt_s(c)} CPU",
            f"floor {fmt_s(fc)} CPU",
            f"{c / fc:.2f}x",
            f"<= {time_target}x floor (CPU)",
            c / fc <= time_target,
        )
    floor_peak = peak(script, path, "floor")
    table.row(f"{label}: floor, traced peak", fmt_mb(floor_peak), f"file {fmt_mb(len(data))}")
    for what, name in (("json", "inspect --json"), ("readable", "inspect")):
        p = peak(script, path, what)
        table.row(
            f"{label}: {name}, traced peak",
            fmt_mb(p),
            f"floor {fmt_mb(floor_peak)}",
            f"{p / floor_peak:.2f}x",
            f"<= {mem_target}x floor",
            p / floor_peak <= mem_target,
        )
    return min(j_c)


def growth_row(
    table: Table, small: Path, big: Path, floor: Callable[[bytes], Any], repeat: int
) -> None:
    """``inspect --json`` on 10x the chunks against the floor's own growth over the same step.

    The issue's target is "at most 10.5x (linear)": 5% over a straight line. The floor itself
    grew 9.9x to 10.8x in five runs on this machine, over 10.5x in three (at 240 MB the memory,
    not the code, sets the pace), so the absolute number cannot tell a reader that is linear
    from one that is not. The target is the same 5%, over the floor's growth in the same run."""
    times = {}
    for path in (small, big):
        data = path.read_bytes()
        (_, _), (f_c, j_c) = interleaved(
            [partial(floor, data), partial(inspect_json, data)], repeat
        )
        times[path] = (min(f_c), min(j_c), len(data))
        del data
    f_s, j_s, _ = times[small]
    f_b, j_b, size = times[big]
    ours, floors = j_b / j_s, f_b / f_s
    table.row(
        f"growth: inspect --json on 1M plain chunks ({fmt_mb(size)}), CPU",
        f"{fmt_s(j_b)}: {ours:.2f}x 100k ({fmt_s(j_s)})",
        f"floor {floors:.2f}x ({fmt_s(f_s)} -> {fmt_s(f_b)})",
        f"{ours / floors:.2f}x",
        f"<= {GROWTH_OVER_FLOOR}x the floor's growth (linear: 10.5x over 10x)",
        ours <= GROWTH_OVER_FLOOR * floors,
    )


# ---------------------------------------------------------------------------- dialects
def dialect_rows(
    table: Table, script: Path, events: int, repeat: int, time_target: float, mem_target: float
) -> dict[str, tuple[float, float]]:
    out = {}
    for name, spec in gen_dialects.SPECS.items():
        path = gen_dialects.ensure(name, events)
        data = path.read_bytes()
        check(name, data)
        measured: list[Callable[[], Any]] = [
            partial(gen_dialects.floor, name, data),
            partial(gen_dialects.floor_objects, name, data),
            partial(inspect_json, data),
        ]
        if spec.container == "eventstream":
            measured.append(partial(gen_dialects.floor_checked, name, data))
        walls, cpus = interleaved(measured, repeat)
        f_w, j_w = walls[0], walls[2]
        fc, oc, jc = min(cpus[0]), min(cpus[1]), min(cpus[2])
        table.row(
            f"{name}: the floor with a raw and a text event per payload",
            f"{fmt_s(oc)} CPU",
            f"floor {fmt_s(fc)} CPU",
            f"{oc / fc:.2f}x",
        )
        if spec.container == "eventstream":
            kc = min(cpus[3])
            table.row(
                f"{name}: the floor with both CRCs of each frame checked",
                f"{fmt_s(kc)} CPU; inspect --json {jc / kc:.2f}x it",
                f"floor {fmt_s(fc)} CPU",
                f"{kc / fc:.2f}x",
            )
        table.row(
            f"{name} ({spec.container}, {events // 1000}k events, {fmt_mb(len(data))}): "
            "inspect --json",
            f"{fmt_s(min(j_w))} wall, {fmt_s(jc)} CPU",
            f"floor {fmt_s(fc)} CPU ({fmt_s(min(f_w))} wall)",
            f"{jc / fc:.2f}x",
            f"<= {time_target}x floor (CPU)",
            jc / fc <= time_target,
        )
        f_peak = peak(script, path, "floor", name)
        j_peak = peak(script, path, "json")
        table.row(
            f"{name}: inspect --json, traced peak",
            fmt_mb(j_peak),
            f"floor {fmt_mb(f_peak)}",
            f"{j_peak / f_peak:.2f}x",
            f"<= {mem_target}x floor",
            j_peak <= mem_target * f_peak,
        )
        out[name] = (fc, jc)
    return out


def check(name: str, data: bytes) -> None:
    """The benchmark means nothing if the text read differs from the floor's."""
    capture = read_capture(data)
    assert len(capture.streams) == 1 and capture.streams[0].dialect == name, name
    summary = json.loads(render_json(capture))["streams"][0]
    text = summary["normalized"]["outputs"][0]["text"]
    assert text == "".join(gen_dialects.floor(name, data)), f"{name}: text differs"


# ---------------------------------------------------------------------------- the player
class _OneCapture(Sources):
    """The capture opened from its bytes, read on open as a stored capture is on a cold
    cache (``Sources.stored``): the parse is part of the time to the first message."""

    def __init__(self, data: bytes) -> None:
        super().__init__(Limits(), 1)
        self.data = data

    def open(self, source: dict[str, Any]) -> Loaded:
        capture = read_capture(self.data, None, self.limits)
        return Loaded("bench", "bench", capture, {"kind": "capture", "id": "bench"})


def open_in_player(data: bytes) -> dict[str, float]:
    """Server time from the open message to the first and the last ``events`` message sent
    (the session's own send calls, in process; no socket)."""
    settings = load({"data_dir": "/tmp/unused"})
    times: dict[str, float] = {}
    opened: list[float] = []

    def send(message: str | Prepared) -> None:
        now = time.perf_counter()
        head = message.plain[:32] if isinstance(message, Prepared) else message[:20].encode()
        if b'"type":"events"' in head:
            times.setdefault("first", now - opened[0])
            times["last"] = now - opened[0]

    incoming = [json.dumps({"type": "open", "source": {"capture": "bench"}})]

    def receive(timeout: float | None) -> str | None:
        if incoming:
            opened.append(time.perf_counter())
            return incoming.pop()
        raise ConnectionError("closed")

    session = Session(send, receive, _OneCapture(data), settings)
    with contextlib.suppress(ConnectionError):
        session.run()
    return times


def player_rows(table: Table, label: str, path: Path, repeat: int) -> None:
    data = path.read_bytes()
    firsts, lasts, parses = [], [], []
    for _ in range(repeat):  # in turns: open, then parse alone
        gc.collect()
        times = open_in_player(data)
        firsts.append(times["first"])
        lasts.append(times["last"])
        gc.collect()
        t0 = time.perf_counter()
        capture = read_capture(data)
        parses.append(time.perf_counter() - t0)
        del capture
    parse, first, last = min(parses), min(firsts), min(lasts)
    table.row(f"{label}: parse (read_capture)", fmt_s(parse))
    table.row(
        f"{label}: open in the player, request to the first `events` message",
        fmt_s(first),
        f"parse {fmt_s(parse)}",
        f"{first / parse:.2f}x",
    )
    encode = last - parse
    table.row(
        f"{label}: request to the last `events` message; encoding = that - parse",
        f"{fmt_s(last)} (encoding {fmt_s(encode)})",
        f"parse {fmt_s(parse)}",
        f"encoding {encode / parse:.2f}x parse",
        "encoding <= 1x parse",
        encode <= parse,
    )
