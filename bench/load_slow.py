"""Slow viewers: connections that stop reading must not slow the others.

Two parts, each run twice on the same server (without, then with the slow ones):

* live: ``--normal`` viewers follow one live run (fake upstream, ``gate:`` model: they attach,
  then the fake writes ``--rate`` chunks/s for ``--live-seconds``); their event rate (chunks
  received per second, from the first to the last) and lateness (see load_fanout_live.py);
  the slow ones open the same live run, once (the run is too short to fill the socket
  buffers, so they are not dropped, and reopening would only add viewers);
* replay: ``--normal`` viewers replay a ``--chunks`` capture again and again for
  ``--replay-seconds`` (connect, ``open``, read to ``end``, close, repeat): events per second,
  all viewers together; the slow ones open a ``--slow-chunks`` capture.

The slow ones: ``--slow`` raw sockets with a 4 KiB receive buffer (``SO_RCVBUF`` before
connecting) that complete the websocket handshake, send ``open``, and never read again. The
server is meant to drop each after ``ws_send_timeout`` (5 s) plus its message's size at 1 MB/s
once its sends block; on loopback they block only when about 2 MB wait in the socket buffers
(Linux autotunes the server's send buffer), hence the large capture, and a live run long
enough (about 110 KB/s at 200 chunks/s). In the replay part, to keep ``--slow`` stuck
connections all along, each slot opens a new one every ``--reopen`` seconds (the old ones stay
open, unread, until the end).

Target: with the slow ones, the normal viewers keep >= 90% of their event rate.

    python -m bench load-slow
    python -m bench load-slow --normal 20 --live-seconds 10 --replay-seconds 8
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Any

from kit.cleanup import install_cleanup
from kit.cpu import CpuMeter
from kit.fake import Fake
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server, upload
from kit.table import Table, fmt_mb, fmt_ms, fmt_s, pct, ratio
from kit.workers import (
    Worker,
    all_viewers,
    client_cpu,
    client_row,
    crew,
    go,
    ready,
    results,
    run_once,
    stop_all,
)
from load_fanout_replay import make_capture

QUICK = {"normal": 10, "slow": 4, "live_seconds": 10.0, "replay_seconds": 6.0}


def stop_stalled(stall: Any) -> dict | None:
    """Stop the stalled connections' worker; what it saw (None without one)."""
    if not stall:
        return None
    stall.send("stop")
    stalled = stall.wait("result", 30)
    stall.stop()
    return stalled


def stall_workers(
    server: Server, source: dict[str, Any], args: argparse.Namespace, reopen: float | None
) -> Worker:
    w = Worker(
        "stall",
        {"port": server.port, "source": source, "n": args.slow, "reopen_s": reopen},
        name="stall",
    )
    info = w.wait("ready", 60)
    if info["failed"]:
        print(f"(stall: {info['failed']} of {args.slow} could not open)")
    return w


def live_phase(
    server: Server, fake: Fake, name: str, slow: bool, args: argparse.Namespace
) -> dict[str, Any]:
    count = int(args.rate * args.live_seconds)
    starter = Worker(
        "starter",
        {"port": server.port, "base_url": fake.url, "model": f"gate:{name}:{args.rate:g}:{count}"},
    )
    capture = starter.wait("started", 30)["capture"]
    spec = {"port": server.port, "capture": capture, "count": count}
    workers = crew("follow", spec, args.normal, args.procs)
    attached = sum(line["attached"] for line in ready(workers, 60))
    stall = stall_workers(server, {"capture": capture}, args, None) if slow else None
    log_before = len(server.log_events())
    before, cpu = server.stats(), CpuMeter().start()
    t0 = time.monotonic()
    fake.go(name)
    done = results(workers, args.live_seconds + 120)
    wall = time.monotonic() - t0
    machine, after = cpu.stop(), server.stats()
    stalled = stop_stalled(stall)
    starter.wait("result", 60)
    stop_all([*workers, starter])
    server.wait_idle(30)
    views = all_viewers(done)
    lateness = [x for v in views for x in v["lateness"]]
    rates = [v.get("rate", 0.0) for v in views]
    return {
        "attached": attached,
        "ok": sum(1 for v in views if v["ok"]),
        "rate_p50": pct(rates, 50),
        "rate_min": min(rates, default=0.0),
        "rate_mean": sum(rates) / max(1, len(rates)),
        "lateness_p50": pct(lateness, 50),
        "lateness_p95": pct(lateness, 95),
        "lateness_max": max(lateness, default=float("nan")),
        "server_cpu_s": after["cpu_s"] - before["cpu_s"],
        "wall_s": wall,
        "machine": machine,
        "client": client_cpu(done),
        "stalled": stalled,
        "slow_ended": slow_endings(server, log_before),
    }


def replay_phase(
    server: Server, capture: str, big: str, slow: bool, args: argparse.Namespace
) -> dict[str, Any]:
    spec = {"port": server.port, "source": {"capture": capture}, "duration": args.replay_seconds}
    workers = crew("replayloop", spec, args.normal, args.procs)
    ready(workers)
    stall = stall_workers(server, {"capture": big}, args, args.reopen) if slow else None
    log_before = len(server.log_events())
    before, cpu = server.stats(), CpuMeter().start()
    go(workers)
    done = results(workers, args.replay_seconds + 120)
    machine, after = cpu.stop(), server.stats()
    stalled = stop_stalled(stall)
    stop_all(workers)
    server.wait_idle(30)
    views = all_viewers(done)
    seconds = max(r["seconds"] for r in done)
    events = sum(v["events"] for v in views)
    errors = Counter(e for v in views for e in v["errors"])
    return {
        "events": events,
        "replays": sum(v["replays"] for v in views),
        "rate": events / seconds,
        "per_viewer": [v["events"] / seconds for v in views],
        "errors": dict(errors),
        "server_cpu_s": after["cpu_s"] - before["cpu_s"],
        "wall_s": seconds,
        "machine": machine,
        "client": client_cpu(done),
        "stalled": stalled,
        "slow_ended": slow_endings(server, log_before),
    }


def slow_endings(server: Server, skip: int) -> dict[str, Any]:
    """How the websocket sessions logged since ``skip`` ended, and how long the stuck ones
    (ended by an error, not by the page) lasted."""
    records = server.log_events()[skip:]
    ended = Counter(r.get("ended") for r in records)
    stuck = [
        r["seconds"]
        for r in records
        if "TimeoutError" in str(r.get("ended")) or "timed out" in str(r.get("ended"))
    ]
    return {
        "ended": dict(ended),
        "dropped_after_s": [pct(stuck, 50), max(stuck, default=float("nan"))],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--normal", type=int, default=40)
    parser.add_argument("--slow", type=int, default=10)
    parser.add_argument("--live-seconds", type=float, default=25.0, help="length of a live phase")
    parser.add_argument(
        "--replay-seconds", type=float, default=15.0, help="length of a replay phase"
    )
    parser.add_argument("--rate", type=float, default=200.0, help="live: chunks per second")
    parser.add_argument("--chunks", type=int, default=1000, help="replay: chunks in the capture")
    parser.add_argument(
        "--slow-chunks", type=int, default=5000, help="replay: the slow ones' capture"
    )
    parser.add_argument("--reopen", type=float, default=6.0, help="seconds between new slow ones")
    parser.add_argument("--threads", type=int, default=128, help="gunicorn threads")
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--target", type=float, default=0.90, help="rate kept, fraction")
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(packages=PACKAGES, title="Slow viewers: stuck connections do not slow the others")
    fake = Fake()
    server = Server(threads=args.threads).start()
    data = make_capture(args.chunks)
    big_data = make_capture(args.slow_chunks)
    print(f"server: `{server.describe()}`; fake upstream pid {fake.pid}")
    print(
        f"{args.normal} normal viewers, {args.slow} slow ones (4 KiB receive buffer, never read; in the replay part a new "
        f"one per slot every {args.reopen:g} s); live: {args.live_seconds:g} s at {args.rate:g} chunks/s; "
        f"replay: {args.replay_seconds:g} s of a {args.chunks:,}-chunk capture ({fmt_mb(len(data))}), "
        f"the slow ones opening a {args.slow_chunks:,}-chunk one ({fmt_mb(len(big_data))})\n"
    )
    try:
        status, body, _ = upload(server.port, data, "slow-bench")
        assert status == 201, (status, body)
        capture = body["id"]
        status, body, _ = upload(server.port, big_data, "slow-bench-big")
        assert status == 201, (status, body)
        big = body["id"]
        for warm in (capture, big):  # parse both once, so that neither phase pays for it
            run_once("replay", {"port": server.port, "source": {"capture": warm}, "n": 1}, 120)
        live_without = live_phase(server, fake, "without", False, args)
        live_with = live_phase(server, fake, "with", True, args)
        replay_without = replay_phase(server, capture, big, False, args)
        replay_with = replay_phase(server, capture, big, True, args)
    finally:
        server.stop()
        fake.stop()

    table = Table(f"Slow viewers: {args.normal} normal + {args.slow} that never read")
    lw, lo = live_with, live_without
    table.row(
        "live: normal viewers with every event in order",
        f"{lw['ok']}/{args.normal}",
        f"without slow ones {lo['ok']}/{args.normal}",
        "",
        f"{args.normal}/{args.normal}",
        lw["ok"] == args.normal and lo["ok"] == args.normal,
    )
    kept = lw["rate_p50"] / lo["rate_p50"] if lo["rate_p50"] else 0.0
    table.row(
        "live: event rate per normal viewer, p50 (chunks/s, first to last)",
        f"{lw['rate_p50']:.1f}/s (min {lw['rate_min']:.1f})",
        f"without {lo['rate_p50']:.1f}/s (min {lo['rate_min']:.1f})",
        f"{kept:.2f}x",
        f">= {args.target:.2f}x",
        kept >= args.target,
    )
    kept_min = lw["rate_min"] / lo["rate_min"] if lo["rate_min"] else 0.0
    table.row(
        "live: slowest normal viewer's event rate",
        f"{lw['rate_min']:.1f}/s",
        f"without {lo['rate_min']:.1f}/s",
        f"{kept_min:.2f}x",
        f">= {args.target:.2f}x",
        kept_min >= args.target,
    )
    table.row(
        "live: lateness p50 / p95 / max",
        f"{fmt_ms(lw['lateness_p50'])} / {fmt_ms(lw['lateness_p95'])} / {fmt_ms(lw['lateness_max'])}",
        f"{fmt_ms(lo['lateness_p50'])} / {fmt_ms(lo['lateness_p95'])} / {fmt_ms(lo['lateness_max'])}",
        ratio(lw["lateness_p95"], lo["lateness_p95"]),
    )
    rw, ro = replay_with, replay_without
    kept_r = rw["rate"] / ro["rate"] if ro["rate"] else 0.0
    table.row(
        "replay: events per second, all normal viewers",
        f"{rw['rate']:,.0f}/s ({rw['replays']} replays)",
        f"without {ro['rate']:,.0f}/s ({ro['replays']} replays)",
        f"{kept_r:.2f}x",
        f">= {args.target:.2f}x",
        kept_r >= args.target,
    )
    slowest_w = min(rw["per_viewer"], default=0.0)
    slowest_o = min(ro["per_viewer"], default=0.0)
    table.row(
        "replay: slowest normal viewer, events per second",
        f"{slowest_w:,.0f}/s",
        f"without {slowest_o:,.0f}/s",
        ratio(slowest_w, slowest_o),
    )
    if rw["errors"] or ro["errors"]:
        table.row("replay: errors", f"{rw['errors']}", f"{ro['errors']}")
    for label, phase in (("live", lw), ("replay", rw)):
        st = phase["stalled"] or {}
        se = phase["slow_ended"]
        table.row(
            f"{label}: slow connections opened; sessions ended, by how; stuck ones dropped after (p50/max)",
            f"{st.get('opened')} opened ({st.get('failed')} failed); {se['ended']}; "
            f"{fmt_s(se['dropped_after_s'][0])} / {fmt_s(se['dropped_after_s'][1])}",
        )
    for label, w, o in (("live", lw, lo), ("replay", rw, ro)):
        table.row(
            f"{label}: server CPU",
            f"{w['server_cpu_s']:.1f} s in {w['wall_s']:.1f} s",
            f"without {o['server_cpu_s']:.1f} s in {o['wall_s']:.1f} s",
            ratio(w["server_cpu_s"], o["server_cpu_s"]),
        )
        table.row(
            f"{label}: machine busy; other processes' CPU (not this bench)",
            f"{100 * w['machine'].machine_busy:.0f}%; {w['machine'].others_s:.1f} s",
            f"without {100 * o['machine'].machine_busy:.0f}%; {o['machine'].others_s:.1f} s",
        )
        client_row(table, f"{label}, with slow", w["client"], w["wall_s"])
        client_row(table, f"{label}, without", o["client"], o["wall_s"])
    print(table.render())
    code = table.verdict()
    save_json(
        "slow",
        {
            "live_without": live_without,
            "live_with": live_with,
            "replay_without": {k: v for k, v in ro.items() if k != "per_viewer"},
            "replay_with": {k: v for k, v in rw.items() if k != "per_viewer"},
            "failed": table.failed,
        },
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
