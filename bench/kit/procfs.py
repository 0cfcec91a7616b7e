"""Process and machine statistics from /proc (proc(5)): CPU seconds, memory, threads, fds."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcCpu:
    """One process's parent and CPU seconds (its own; and its reaped children's)."""

    ppid: int
    own_s: float  # utime + stime
    reaped_s: float  # cutime + cstime: children it has waited for


def _stat_fields(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (field 3, the state, first)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()


def processes() -> dict[int, ProcCpu]:
    """Every process on the machine (those that vanish while read are left out)."""
    out: dict[int, ProcCpu] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            f = _stat_fields(int(name))  # fields 4 (ppid) and 14-17 (times) of proc(5)
            out[int(name)] = ProcCpu(
                int(f[1]), (int(f[11]) + int(f[12])) / TICK, (int(f[13]) + int(f[14])) / TICK
            )
    return out


def descendants(root: int, procs: dict[int, ProcCpu]) -> set[int]:
    """``root`` and every process below it."""
    kids: dict[int, list[int]] = {}
    for pid, proc in procs.items():
        kids.setdefault(proc.ppid, []).append(pid)
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo += kids.get(pid, [])
    return tree


def cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def machine_times() -> tuple[float, float, float]:
    """(busy, idle, steal) CPU seconds of the whole machine since boot, all cores."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    busy = user + nice + system + irq + softirq
    return busy / TICK, (idle + iowait) / TICK, steal / TICK


def children(pid: int) -> list[int]:
    kids: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{task}/children").read_text()
                kids += [int(k) for k in text.split()]
    return kids


def proc_stat(pid: int) -> dict[str, Any] | None:
    """CPU seconds, RSS and its high-water mark (bytes), threads and open fds of one process
    (None when it is gone)."""
    try:
        fields = _stat_fields(pid)
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, ValueError):
        return None
    info: dict[str, Any] = {
        "pid": pid,
        "cpu_s": (int(fields[11]) + int(fields[12])) / TICK,
        "fds": fds,
    }
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key == "VmRSS":
            info["rss"] = int(value.split()[0]) * 1024
        elif key == "VmHWM":
            info["rss_peak"] = int(value.split()[0]) * 1024
        elif key == "Threads":
            info["threads"] = int(value)
    return info
