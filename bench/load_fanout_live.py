"""Fan-out, live: many viewers follow one live run's share link.

A live run is started over the websocket (``start``) against the fake upstream (own process)
with model ``gate:<name>:<rate>:<count>``: the fake sends its headers, waits until every viewer
has opened the share link (``open`` with the capture id, ``capture`` received), then writes
``count`` chunks at ``rate`` per second, each with ``x_sent_ms``. Each viewer checks that it
gets every event in order (``seq`` continuous from 0, tokens ``t0``, ``t1``, ... in order, end
``done``) and records, for every chunk, its lateness: the viewer's receipt time (``time.time()``
when ``recv()`` returned the message) minus ``x_sent_ms`` (the fake's wall clock when it wrote
the chunk; same machine, same clock). Baseline: the same with one viewer, same server, same run.

    python -m bench load-fanout-live                     # 200 viewers, 200 chunks/s x 4000
    python -m bench load-fanout-live --viewers 50 --count 1000 --procs 1
    python -m bench load-fanout-live --client lean     # a minimal client: less client CPU

With ``--client lean`` the viewers are a minimal websocket client (``kit/clients/lean.py``:
frames parsed in bulk per socket read, events checked with regular expressions), which costs
a fraction of the ``websockets`` client per message: on a 2-core machine the ``websockets``
client alone needs about a core for 200 viewers on the live edge, so its numbers include
the client's own delay (the table says how busy the client was).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from kit.cleanup import install_cleanup
from kit.cpu import CpuMeter
from kit.fake import Fake
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_mb, fmt_ms, lateness_rows, pct, ratio, spread
from kit.workers import (
    Worker,
    all_viewers,
    client_cpu,
    client_row,
    crew,
    failures,
    results,
    split_lateness,
    stop_all,
)

QUICK = {"viewers": 50, "count": 1000, "procs": 1}


def run_phase(
    server: Server, fake: Fake, name: str, viewers: int, args: argparse.Namespace
) -> dict[str, Any]:
    model = f"gate:{name}:{args.rate:g}:{args.count}"
    starter = Worker("starter", {"port": server.port, "base_url": fake.url, "model": model})
    capture = starter.wait("started", 30)["capture"]
    spec = {"port": server.port, "capture": capture, "count": args.count}
    workers = crew("follow", {**spec, "lean": args.client == "lean"}, viewers, args.procs)
    attached = sum(w.wait("ready", 120)["attached"] for w in workers)
    health = server.healthz()
    before, cpu = server.stats(), CpuMeter().start()
    t0 = time.monotonic()
    fake.go(name)
    dumps = []
    if args.py_spy and viewers > 1:
        time.sleep(args.count / args.rate / 2)
        dumps.append(server.py_spy_dump())
    done = results(workers, args.count / args.rate + 180)
    starter_result = starter.wait("result", 60)
    wall = time.monotonic() - t0
    after, machine = server.stats(), cpu.stop()
    stop_all([*workers, starter])
    views = all_viewers(done)
    lateness = [x for v in views for x in v["lateness"]]
    return {
        "viewers": viewers,
        "attached": attached,
        "healthz_websockets": health.get("websockets"),
        "capture": capture,
        "ok": sum(1 for v in views if v["ok"]),
        "failures": failures(views, ("error", "end", "seq_errors", "token_errors", "tokens")),
        "seq_errors": sum(v["seq_errors"] for v in views),
        "token_errors": sum(v["token_errors"] for v in views),
        "messages": sum(v["messages"] for v in views),
        "events": sum(v["events"] for v in views),
        "lateness": spread(lateness),
        "split": split_lateness(views),
        "rate_p50": pct([v.get("rate", 0.0) for v in views], 50),
        "starter_end": (starter_result.get("end") or {}).get("reason"),
        "server_cpu_s": after["cpu_s"] - before["cpu_s"],
        "server_threads": after["worker_threads"],
        "server_rss": after["worker_rss"],
        "wall_s": wall,
        "machine": machine,
        "client": client_cpu(done),
        "py_spy": dumps,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--rate", type=float, default=200.0, help="chunks per second")
    parser.add_argument("--count", type=int, default=4000, help="chunks in the run")
    parser.add_argument("--threads", type=int, default=256, help="gunicorn threads")
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument(
        "--client",
        choices=("websockets", "lean"),
        default="websockets",
        help="viewer client: the websockets library, or a minimal frame parser (a fraction of the CPU)",
    )
    parser.add_argument("--target-p95-ms", type=float, default=100.0)
    parser.add_argument("--py-spy", action="store_true", help="py-spy dump the worker mid-run")
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(packages=PACKAGES, title="Fan-out, live: viewers following one live run")
    fake = Fake()
    server = Server(threads=args.threads).start()
    print(f"server: `{server.describe()}`; fake upstream pid {fake.pid}, its own process")
    print(
        f"run: model gate:*:{args.rate:g}:{args.count} ({args.count / args.rate:.0f} s), "
        f"viewers attach first, then the fake writes; clients: {args.procs} process(es), "
        f"{args.client} client\n"
    )
    try:
        base = run_phase(server, fake, "baseline", 1, args)
        many = run_phase(server, fake, "fanout", args.viewers, args)
    finally:
        server.stop()
        fake.stop()
    table = Table(f"Fan-out, live: {args.viewers} viewers, {args.rate:g} chunks/s x {args.count}")
    n = args.viewers
    table.row(
        "viewers with every event in order (seq continuous, all tokens, end done)",
        f"{many['ok']}/{n} (attached {many['attached']}, seq errors {many['seq_errors']}, "
        f"token errors {many['token_errors']})",
        f"{base['ok']}/1",
        "",
        f"{n}/{n}",
        many["ok"] == n and base["ok"] == 1,
    )
    lb, lm = base["lateness"], many["lateness"]
    lateness_rows(table, lm, lb, "fake's write -> viewer's recv", args.target_p95_ms)
    sm, sb = many["split"], base["split"]
    if sm and sb:
        table.row(
            "  of which fake's write -> server's read, p50/p95/p99 (upstream thread late)",
            f"{fmt_ms(sm['read_p50'])} / {fmt_ms(sm['read_p95'])} / {fmt_ms(sm['read_p99'])}",
            f"{fmt_ms(sb['read_p50'])} / {fmt_ms(sb['read_p95'])} / {fmt_ms(sb['read_p99'])}",
        )
        table.row(
            "  of which server's read -> viewer's recv, p50/p95/p99 (fan-out)",
            f"{fmt_ms(sm['after_p50'])} / {fmt_ms(sm['after_p95'])} / {fmt_ms(sm['after_p99'])}",
            f"{fmt_ms(sb['after_p50'])} / {fmt_ms(sb['after_p95'])} / {fmt_ms(sb['after_p99'])}",
        )
    table.row(
        "lateness samples (chunks x viewers)",
        f"{lm['n']:,}",
        f"{lb['n']:,}",
    )
    table.row(
        "messages per viewer (1 per chunk when on the live edge; fewer = batched catch-up)",
        f"{many['messages'] / max(1, n):.0f}",
        f"{base['messages']:.0f}",
    )
    table.row(
        "server CPU during the run (master + worker)",
        f"{many['server_cpu_s']:.1f} s in {many['wall_s']:.1f} s ({100 * many['server_cpu_s'] / many['wall_s']:.0f}% of a core)",
        f"{base['server_cpu_s']:.1f} s in {base['wall_s']:.1f} s",
        ratio(many["server_cpu_s"], base["server_cpu_s"]),
    )
    table.row(
        "server worker threads / RSS at the end",
        f"{many['server_threads']} / {fmt_mb(many['server_rss'])}",
        f"{base['server_threads']} / {fmt_mb(base['server_rss'])}",
    )
    table.row(
        "machine CPU busy during the run (2 cores = 100%)",
        f"{100 * many['machine'].machine_busy:.0f}%",
        f"{100 * base['machine'].machine_busy:.0f}%",
    )
    table.row(
        "other processes' CPU during the run (not this bench)",
        f"{many['machine'].others_s:.1f} s: {many['machine'].others_text()}",
        f"{base['machine'].others_s:.1f} s",
    )
    client_row(table, f"{n} viewers", many["client"], many["wall_s"])
    table.row(
        "client CPU per message received (receive, parse, checks; includes start-up)",
        f"{1e6 * many['client']['cpu_s'] / max(1, many['messages']):.0f} us",
        f"{1e6 * base['client']['cpu_s'] / max(1, base['messages']):.0f} us",
    )
    client_row(table, "1 viewer", base["client"], base["wall_s"])
    print(table.render())
    if many["failures"]:
        print(f"\nfailures (first 5): {many['failures']}")
    for dump in many["py_spy"]:
        print("\npy-spy dump mid-run:\n```\n" + dump[:20000] + "\n```")
    code = table.verdict()
    save_json("load_fanout_live", {"baseline": base, "fanout": many, "failed": table.failed})
    return code


if __name__ == "__main__":
    sys.exit(main())
