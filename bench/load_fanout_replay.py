"""Fan-out, replay: many viewers open one shared (uploaded) capture at the same moment.

A capture (``bench/gen_capture.py``: OpenAI chunks with logprobs, 5 alternatives each) is
uploaded twice (``POST /api/captures``, raw body: two ids, same bytes). Each phase starts its
viewers together (client processes wait for ``go``); each viewer connects, sends ``open``
right away, and reads until ``end``, checking that it got every event of every stream
(counts from the ``capture`` message, ``seq`` continuous per stream).

* time to first paint: from the start of the connect to the first ``events`` message; also
  to ``end`` (the whole timeline);
* server CPU seconds (master + worker, /proc) during the phase.

Phases, in this order: 1 viewer on capture A (cold: its first open reads and parses it), 1
viewer on A again (warm: the parsed capture comes from the cache), N viewers on capture B
(cold, all at once), N viewers on B again (warm). The 1-viewer baselines are each the mean
(times: the median) of ``--repeat`` opens (CPU is counted in 10 ms ticks). Target: the warm
N-viewer first paint p95 under ``--target-first-p95-ms`` (a page should show something within
a second even when many open a shared link together).

    python -m bench load-fanout-replay                 # 200 viewers, 1,000-chunk capture
    python -m bench load-fanout-replay --viewers 50 --chunks 300
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kit.cleanup import install_cleanup
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server, upload
from kit.table import Table, fmt_mb, fmt_ms, pct, ratio
from kit.workers import (
    client_cpu,
    client_row,
    failures,
    measured,
)

QUICK = {"viewers": 50, "chunks": 300, "procs": 1, "repeat": 3}


def make_capture(chunks: int) -> bytes:
    import gen_capture

    return gen_capture.capture_bytes(chunks)


def run_phase(
    server: Server, capture: str, viewers: int, args: argparse.Namespace
) -> dict[str, Any]:
    spec = {"port": server.port, "source": {"capture": capture}}
    phase = measured(server, "replay", spec, viewers, args.procs)
    views, after = phase.views, phase.after
    first = [v["first_events_ms"] for v in views if "first_events_ms" in v]
    end = [v["end_ms"] for v in views if "end_ms" in v]
    return {
        "viewers": viewers,
        "ok": sum(1 for v in views if v["ok"]),
        "failures": failures(views, ("error", "end", "events", "expected_events", "seq_errors")),
        "events_per_viewer": max((v["events"] for v in views), default=0),
        "bytes_per_viewer": max((v["bytes"] for v in views), default=0),
        "first_p50": pct(first, 50),
        "first_p95": pct(first, 95),
        "first_max": max(first, default=float("nan")),
        "end_p50": pct(end, 50),
        "end_p95": pct(end, 95),
        "end_max": max(end, default=float("nan")),
        "connect_p95": pct([v["connect_ms"] for v in views if "connect_ms" in v], 95),
        "server_cpu_s": phase.server_cpu_s,
        "server_rss": after["worker_rss"],
        "server_rss_peak": after["worker_rss_peak"],
        "server_threads": after["worker_threads"],
        "wall_s": phase.wall_s,
        "machine": phase.machine,
        "client": client_cpu(phase.done),
    }


def merge(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """Several 1-viewer phases as one: medians of the times, mean of the CPU."""
    out = dict(phases[0])
    for key in ("first_p50", "first_p95", "end_p50", "end_p95", "end_max", "wall_s"):
        out[key] = pct([p[key] for p in phases], 50)
    out["server_cpu_s"] = sum(p["server_cpu_s"] for p in phases) / len(phases)
    out["ok"] = int(all(p["ok"] == 1 for p in phases))
    out["runs"] = len(phases)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=1000, help="token chunks in the capture")
    parser.add_argument("--threads", type=int, default=256, help="gunicorn threads")
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument("--repeat", type=int, default=5, help="1-viewer baseline runs (mean)")
    parser.add_argument("--target-first-p95-ms", type=float, default=1000.0)
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(packages=PACKAGES, title="Fan-out, replay: viewers opening one shared capture at once")
    data = make_capture(args.chunks)
    server = Server(threads=args.threads).start()
    print(f"server: `{server.describe()}`")
    print(
        f"capture: bench/gen_capture.py, {args.chunks:,} token chunks with logprobs, {fmt_mb(len(data))}, "
        f"uploaded twice; clients: {args.procs} process(es)\n"
    )
    try:
        ids = []
        for i in range(args.repeat + 1):
            status, body, _ = upload(server.port, data, f"fanout-{i}")
            assert status == 201, (status, body)
            ids.append(body["id"])
        # the 1-viewer baselines: each the mean of --repeat opens (CPU ticks are 10 ms)
        cold1 = merge([run_phase(server, ids[i], 1, args) for i in range(args.repeat)])
        warm1 = merge([run_phase(server, ids[0], 1, args) for _ in range(args.repeat)])
        coldn = run_phase(server, ids[-1], args.viewers, args)
        warmn = run_phase(server, ids[-1], args.viewers, args)
    finally:
        server.stop()
    n = args.viewers
    table = Table(f"Fan-out, replay: {n} viewers open one {fmt_mb(len(data))} capture at once")
    table.row(
        "viewers with the whole timeline (all events, seq continuous, end complete): cold / warm",
        f"{coldn['ok']}/{n} / {warmn['ok']}/{n}",
        f"{cold1['ok']}/1 / {warm1['ok']}/1",
        "",
        f"{n}/{n}",
        coldn["ok"] == n and warmn["ok"] == n and cold1["ok"] == 1 and warm1["ok"] == 1,
    )
    table.row(
        "events / bytes per viewer",
        f"{warmn['events_per_viewer']:,} events, {fmt_mb(warmn['bytes_per_viewer'])}",
    )
    table.row(
        "websocket handshake (connect) p95, warm / cold",
        f"{fmt_ms(warmn['connect_p95'])} / {fmt_ms(coldn['connect_p95'])}",
        f"1 viewer {fmt_ms(warm1['connect_p95'])}",
    )
    for label, many, one in (("warm", warmn, warm1), ("cold", coldn, cold1)):
        target = label == "warm"
        table.row(
            f"{label}: time to first `events` p50",
            fmt_ms(many["first_p50"]),
            f"1 viewer {fmt_ms(one['first_p50'])}",
            ratio(many["first_p50"], one["first_p50"]),
        )
        table.row(
            f"{label}: time to first `events` p95",
            fmt_ms(many["first_p95"]),
            f"1 viewer {fmt_ms(one['first_p95'])}",
            ratio(many["first_p95"], one["first_p95"]),
            f"< {args.target_first_p95_ms:g} ms" if target else "",
            many["first_p95"] < args.target_first_p95_ms if target else None,
        )
        table.row(
            f"{label}: time to `end` p50 / p95 / max",
            f"{fmt_ms(many['end_p50'])} / {fmt_ms(many['end_p95'])} / {fmt_ms(many['end_max'])}",
            f"1 viewer {fmt_ms(one['end_p50'])}",
            ratio(many["end_p95"], one["end_p50"]),
        )
        table.row(
            f"{label}: server CPU (master + worker)",
            f"{many['server_cpu_s']:.2f} s ({1000 * many['server_cpu_s'] / n:.1f} ms per viewer) in {many['wall_s']:.1f} s",
            f"1 viewer {one['server_cpu_s']:.3f} s (mean of {one['runs']})",
            ratio(many["server_cpu_s"] / n, one["server_cpu_s"]) + " per viewer",
        )
    parse_one = cold1["server_cpu_s"] - warm1["server_cpu_s"]
    extra = coldn["server_cpu_s"] - warmn["server_cpu_s"]
    table.row(
        f"cold minus warm server CPU, {n} viewers (a parse per viewer would add {n} x one parse)",
        f"{extra:+.2f} s",
        f"one parse ~{parse_one:.3f} s (cold minus warm, 1 viewer)",
        "",
        "(information: the difference is within the phases' noise unless the parse is large)",
    )
    table.row(
        "server worker threads / RSS (peak) after the warm phase",
        f"{warmn['server_threads']} / {fmt_mb(warmn['server_rss'])} ({fmt_mb(warmn['server_rss_peak'])})",
    )
    table.row(
        "machine CPU busy; other processes' CPU (not this bench), warm phase",
        f"{100 * warmn['machine'].machine_busy:.0f}%; {warmn['machine'].others_s:.1f} s: {warmn['machine'].others_text()}",
    )
    client_row(table, f"{n} viewers, warm", warmn["client"], warmn["wall_s"])
    client_row(table, f"{n} viewers, cold", coldn["client"], coldn["wall_s"])
    print(table.render())
    for phase in (coldn, warmn):
        if phase["failures"]:
            print(f"\nfailures (first 5): {phase['failures']}")
    code = table.verdict()
    save_json(
        "fanout_replay",
        {"cold1": cold1, "warm1": warm1, "coldn": coldn, "warmn": warmn, "failed": table.failed},
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
