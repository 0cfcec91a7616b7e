"""How busy the machine was during a measurement, and who made it busy.

``CpuMeter().start()`` ... ``.stop()`` gives a ``CpuUse``: the machine's busy CPU seconds
(all cores, /proc/stat), this bench's own share (this process and every process below it: the
server and its workers, the fake upstream, client processes, Chromium and Playwright's driver,
with the children they have reaped), the rest as other processes' (a shared machine's load,
which inflates and scatters the numbers), the busiest of those, and hypervisor steal.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from kit.procfs import ProcCpu, cmdline, descendants, machine_times, processes


@dataclass
class CpuUse:
    wall_s: float
    cores: int
    machine_s: float  # busy CPU seconds of the whole machine
    steal_s: float
    ours_s: float  # this bench's processes
    ours_by_kind: dict[str, float] = field(default_factory=dict)  # CPU seconds by kind
    top_others: list[tuple[float, int, str]] = field(default_factory=list)  # (s, pid, command)

    @property
    def machine_busy(self) -> float:
        """Share of all cores busy (0..1)."""
        return self.machine_s / max(self.wall_s * self.cores, 1e-9)

    @property
    def others_s(self) -> float:
        return max(0.0, self.machine_s - self.ours_s)

    @property
    def others_share(self) -> float:
        """Other processes' share of all cores (0..1)."""
        return self.others_s / max(self.wall_s * self.cores, 1e-9)

    def others_text(self) -> str:
        """The busiest other processes (those above 5% of a core)."""
        if not self.top_others:
            return "none above 5% of a core"
        return "; ".join(f"{s:.1f} s pid {pid} `{cmd[:60]}`" for s, pid, cmd in self.top_others)

    def line(self, label: str) -> str:
        share = 100 / max(self.wall_s * self.cores, 1e-9)
        kinds = ", ".join(
            f"{kind} {100 * s / max(self.wall_s, 1e-9):.0f}"
            for kind, s in sorted(self.ours_by_kind.items(), key=lambda kv: -kv[1])
            if s >= 0.005 * self.wall_s
        )
        return (
            f"CPU, {label} ({self.wall_s:.1f} s, {self.cores} cores): machine "
            f"{share * self.machine_s:.0f}% busy = this bench {share * self.ours_s:.0f}% + other "
            f"processes {share * self.others_s:.0f}% (busiest: {self.others_text()}); hypervisor "
            f"steal {self.steal_s:.1f} CPU-s; this bench by process, % of one core: {kinds}"
        )


class CpuMeter:
    def start(self) -> CpuMeter:
        self.t0 = time.monotonic()
        self.machine0 = machine_times()
        self.procs0 = processes()
        self.ours0 = descendants(os.getpid(), self.procs0)
        return self

    def stop(self) -> CpuUse:
        """Call while the processes to count still run (a process that has exited counts only
        once its parent has reaped it)."""
        wall = time.monotonic() - self.t0
        busy, _, steal = machine_times()
        procs = processes()
        ours = descendants(os.getpid(), procs)

        def total(pids: set[int], table: dict[int, ProcCpu]) -> float:
            return sum(table[p].own_s + table[p].reaped_s for p in pids if p in table)

        by_kind: dict[str, float] = {}
        for pid in ours:
            before = self.procs0.get(pid)
            spent = procs[pid].own_s + procs[pid].reaped_s
            spent -= before.own_s + before.reaped_s if before else 0.0
            by_kind[kind_of(pid)] = by_kind.get(kind_of(pid), 0.0) + spent
        others = []
        for pid, proc in procs.items():
            if pid in ours or pid in self.ours0:
                continue
            before = self.procs0.get(pid)
            spent = proc.own_s - (before.own_s if before else 0.0)
            if spent >= 0.05 * wall:
                others.append((round(spent, 1), pid, cmdline(pid)[:90]))
        return CpuUse(
            wall_s=wall,
            cores=os.cpu_count() or 1,
            machine_s=busy - self.machine0[0],
            steal_s=steal - self.machine0[2],
            ours_s=total(ours, procs) - total(self.ours0, self.procs0),
            ours_by_kind=by_kind,
            top_others=sorted(others, reverse=True)[:3],
        )


def machine_busy_share(seconds: float) -> float:
    """Share of all cores busy (any process) over the next ``seconds``."""
    busy0, idle0, _ = machine_times()
    time.sleep(seconds)
    busy1, idle1, _ = machine_times()
    total = (busy1 - busy0) + (idle1 - idle0)
    return (busy1 - busy0) / total if total > 0 else 0.0


def kind_of(pid: int) -> str:
    """What one of this bench's processes is, from its command line."""
    if pid == os.getpid():
        return "bench"
    text = cmdline(pid)
    if not text:
        return "exited, not yet reaped"
    launcher = os.environ.get("STREAMSCOPE_BENCH_LAUNCHER")
    if " serve " in f" {text} " and ("app.cli" in text or (launcher and launcher in text)):
        return "streamscope server"
    if "kit.clients" in text:
        return "clients " + text.rsplit(" ", 1)[-1]
    if "kit.fake" in text:
        return "fake upstream"
    if "chromium" in text or "chrome" in text:
        kind = next(
            (a.split("=", 1)[1] for a in text.split() if a.startswith("--type=")), "browser"
        )
        if kind == "utility" and "network" in text.lower():
            kind = "network"
        return f"chromium {kind}"
    if "playwright" in text or text.endswith("node"):
        return "playwright driver"
    return text[:40]
