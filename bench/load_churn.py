"""Churn and soak: connections come and go, then viewers stay a while; does the server return
to where it was?

1. warm-up: one replay of the demo and one short live run (code paths and caches loaded),
   then the baseline: the gunicorn worker's threads, RSS and open fds (/proc), after a settle;
2. churn: ``--cycles`` websocket cycles, ``--concurrency`` at a time: connect, ``open`` the
   demo, read to ``end``, close;
3. soak: ``--viewers`` viewers follow one live run of ``--soak`` seconds (fake upstream,
   ``rate:50:<50 x soak>``), every event checked (seq, tokens, end);
4. after each, wait until /healthz shows no websocket and no live run, settle ``--settle``
   seconds, and read threads, RSS and fds again.

Targets: threads back to the baseline; RSS within +10% or +20 MiB of the baseline (whichever
is larger); fds back to the baseline. A ``py-spy dump`` at the end names what the threads are
(the worker's connection pool, ``conn-*`` threads, ends idle ones after
``STREAMSCOPE_THREAD_IDLE_S``, 10 s, hence the 12 s settle; gunicorn's stock
``ThreadPoolExecutor`` would keep them all), so a thread count above the baseline can be told
from a leak.

    python -m bench load-churn                        # 1,000 cycles, 50 viewers for 60 s
    python -m bench load-churn --cycles 200 --soak 10
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from typing import Any

from kit.cleanup import install_cleanup
from kit.fake import Fake
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_mb, fmt_ms, pct, ratio
from kit.workers import (
    Worker,
    all_viewers,
    crew,
    go,
    ready,
    results,
    run_once,
    split,
    stop_all,
)

POOL_NAMES = ("conn-", "ThreadPoolExecutor")  # ours (app/threadpool.py), gunicorn's stock one

QUICK = {"cycles": 200, "viewers": 10, "soak": 10.0, "settle": 12.0, "runs": 5}


def snapshot(server: Server, settle: float) -> dict[str, Any]:
    health = server.wait_idle(60)
    time.sleep(settle)
    stats = server.stats()
    worker = stats["workers"][0] if stats["workers"] else {}
    return {
        "threads": worker.get("threads"),
        "rss": worker.get("rss"),
        "rss_peak": worker.get("rss_peak"),
        "fds": worker.get("fds"),
        "cpu_s": stats["cpu_s"],
        "websockets": health.get("websockets"),
        "live_runs": health.get("live_runs"),
    }


def thread_kinds(dump: str) -> dict[str, int]:
    """Thread names in a ``py-spy dump``, grouped (pool threads busy or idle, and others)."""
    kinds: Counter[str] = Counter()
    for match in re.finditer(r'^Thread (?:0x)?[0-9A-Fa-f]+ \((\w+)\): "([^"]*)"', dump, re.M):
        state, name = match.groups()
        base = re.sub(r"[-_]?\d+$", "", name) or name
        kinds[f"{base} ({state})"] += 1
    return dict(kinds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--demo", default="tool-calls-parallel")
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--soak", type=float, default=60.0, help="seconds of the live run")
    parser.add_argument("--threads", type=int, default=64, help="gunicorn threads")
    parser.add_argument(
        "--settle", type=float, default=12.0, help="seconds before measuring (> thread idle 10 s)"
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--runs", type=int, default=20, help="live runs in the leak check")
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(
        packages=PACKAGES, title="Churn and soak: threads, memory and fds return to their baseline"
    )
    fake = Fake()
    server = Server(threads=args.threads).start()
    print(f"server: `{server.describe()}`; fake upstream pid {fake.pid}")
    count = int(50 * args.soak)
    print(
        f"churn: {args.cycles} cycles of connect + open demo {args.demo!r} + read to end + close, "
        f"{args.concurrency} at a time; soak: {args.viewers} viewers on a live run rate:50:{count} "
        f"({args.soak:.0f} s); settle {args.settle:g} s before each reading\n"
    )
    try:
        cold = snapshot(server, 0)
        # warm-up: one replay, one short live run
        run_once(
            "churn", {"port": server.port, "cycles": 3, "concurrency": 1, "demo": args.demo}, 60
        )
        live = {"port": server.port, "base_url": fake.url}
        run_once("starter", {**live, "model": "rate:100:50"}, 60)
        base = snapshot(server, args.settle)
        base_dump = server.py_spy_dump()

        # churn
        workers = [
            Worker(
                "churn",
                {"port": server.port, "cycles": n, "concurrency": c, "demo": args.demo},
                name=f"churn{i}",
            )
            for i, (n, c) in enumerate(
                zip(
                    split(args.cycles, args.procs),
                    split(args.concurrency, args.procs),
                    strict=False,
                )
            )
        ]
        ready(workers)
        t0 = time.monotonic()
        go(workers)
        churn = results(workers, 600)
        churn_wall = time.monotonic() - t0
        peak_churn = server.stats()
        stop_all(workers)
        after_churn = snapshot(server, args.settle)

        # soak
        starter = Worker("starter", {**live, "model": f"rate:50:{count}"})
        capture = starter.wait("started", 30)["capture"]
        spec = {"port": server.port, "capture": capture, "count": count, "timeout": 60}
        followers = crew("follow", spec, args.viewers, args.procs)
        attached = sum(line["attached"] for line in ready(followers, 60))
        mid = None
        t1 = time.monotonic()
        soak = []
        for f in followers:
            if mid is None:
                time.sleep(max(0.0, args.soak / 2 - (time.monotonic() - t1)))
                mid = server.stats()
            soak.append(f.wait("result", args.soak + 120))
        starter_result = starter.wait("result", 60)
        stop_all([*followers, starter])
        after_soak = snapshot(server, args.settle)
        dump = server.py_spy_dump()

        # leak check: short live runs one after another (each run has its own thread)
        runs = [
            (run_once("starter", {**live, "model": "rate:200:20"}, 60).get("end") or {}).get(
                "reason"
            )
            for _ in range(args.runs)
        ]
        after_runs = snapshot(server, 1.0)
        log = server.log_events("stream")
    finally:
        server.stop()
        fake.stop()

    ok_cycles = sum(r["ok"] for r in churn)
    failures: Counter[str] = Counter()
    for r in churn:
        failures.update(r["failures"])
    views = all_viewers(soak)
    soak_ok = sum(1 for v in views if v["ok"])
    lateness = [x for v in views for x in v["lateness"]]
    kinds = thread_kinds(dump)
    base_kinds = thread_kinds(base_dump)
    pool = lambda k: sum(v for name, v in k.items() if name.startswith(POOL_NAMES))  # noqa: E731
    other = lambda k: sum(k.values()) - pool(k)  # noqa: E731
    ended = Counter(record.get("ended") for record in log)

    table = Table(
        f"Churn ({args.cycles} cycles) then soak ({args.viewers} viewers, {args.soak:.0f} s live run)"
    )
    table.row(
        "churn cycles completed (connect, open, all to end, close)",
        f"{ok_cycles}/{args.cycles} in {churn_wall:.1f} s ({ok_cycles / churn_wall:.0f}/s); "
        f"cycle p50 {fmt_ms(pct([r['cycle_p50_ms'] for r in churn], 50))}",
        "",
        "",
        f"{args.cycles}/{args.cycles}",
        ok_cycles == args.cycles,
    )
    table.row(
        "soak viewers with every event in order (seq, tokens, end done)",
        f"{soak_ok}/{args.viewers} (attached {attached}); lateness p50/p95 "
        f"{fmt_ms(pct(lateness, 50))} / {fmt_ms(pct(lateness, 95))}",
        "",
        "",
        f"{args.viewers}/{args.viewers}",
        soak_ok == args.viewers,
    )
    bt, brss, bfd = base["threads"], base["rss"], base["fds"]
    allowance = max(0.10 * brss, 20 * 1048576)
    for label, snap in (("after churn", after_churn), ("after soak", after_soak)):
        table.row(
            f"worker threads, {label} (settled {args.settle:g} s, 0 websockets)",
            str(snap["threads"]),
            f"{bt} (cold start {cold['threads']})",
            f"+{snap['threads'] - bt}",
            f"= {bt}",
            snap["threads"] <= bt,
        )
        table.row(
            f"worker RSS, {label}",
            fmt_mb(snap["rss"]),
            f"{fmt_mb(brss)} (cold start {fmt_mb(cold['rss'])})",
            f"{ratio(snap['rss'], brss)} (+{fmt_mb(snap['rss'] - brss)})",
            f"<= {fmt_mb(brss + allowance)}",
            snap["rss"] <= brss + allowance,
        )
        table.row(
            f"worker open fds, {label}",
            str(snap["fds"]),
            str(bfd),
            f"+{snap['fds'] - bfd}",
        )
    if kinds and base_kinds:
        table.row(
            "  of which connection pool threads / others, after soak",
            f"{pool(kinds)} / {other(kinds)}",
            f"{pool(base_kinds)} / {other(base_kinds)}",
            "",
            f"others = {other(base_kinds)}; pool <= {pool(base_kinds)}",
            other(kinds) <= other(base_kinds) and pool(kinds) <= pool(base_kinds),
        )
    n_runs = len(runs)
    fd_per_run = (after_runs["fds"] - after_soak["fds"]) / max(1, n_runs)
    table.row(
        f"leak check: {n_runs} short live runs one after another (threads, fds, RSS change)",
        f"threads {after_runs['threads'] - after_soak['threads']:+d}, fds "
        f"{after_runs['fds'] - after_soak['fds']:+d} ({fd_per_run:+.1f} per run), RSS "
        f"{(after_runs['rss'] - after_soak['rss']) / 1048576:+.1f} MiB; ended {dict(Counter(runs))}",
        f"fds {after_soak['fds']}",
        "",
        "fds not growing with the runs (<= +2 in all: SQLite may defer closing one)",
        after_runs["fds"] - after_soak["fds"] <= 2,
    )
    table.row(
        "worker threads / RSS at the peaks (end of churn; mid-soak)",
        f"{peak_churn['worker_threads']} / {fmt_mb(peak_churn['worker_rss'])}; "
        f"{mid['worker_threads'] if mid else '?'} / {fmt_mb(mid['worker_rss']) if mid else '?'}",
        "",
        "",
        "",
    )
    table.row("worker RSS high-water mark (VmHWM)", fmt_mb(after_soak["rss_peak"] or 0))
    table.row(
        "threads at the end, by name (py-spy dump)",
        ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())) or "py-spy gave nothing",
    )
    table.row(
        "websocket sessions logged, by how they ended",
        ", ".join(f"{k}: {v}" for k, v in ended.most_common()),
    )
    table.row("live run starter ended", str((starter_result.get("end") or {}).get("reason")))
    if failures:
        table.row(
            "churn failures (first kinds)",
            "; ".join(f"{k} x{v}" for k, v in failures.most_common(3)),
        )
    print(table.render())
    code = table.verdict()
    save_json(
        "churn",
        {
            "cold": cold,
            "baseline": base,
            "after_churn": after_churn,
            "after_soak": after_soak,
            "after_runs": after_runs,
            "base_thread_kinds": base_kinds,
            "thread_kinds": kinds,
            "churn": churn,
            "soak_ok": soak_ok,
            "failed": table.failed,
            "py_spy_dump": dump,
        },
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
