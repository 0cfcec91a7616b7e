"""Presenter rooms: many viewers (websocket clients) follow one presenter (docs/teaching.md).

A room is made for a demo (``POST /api/rooms``) on ``streamscope serve --production``; the
presenter joins with its key and every viewer joins the room (each gets the capture replayed,
as a page does); then the presenter sends ``count`` actions at ``rate`` per second (seek, step,
play, pause, speed, token, tool, theme, zoom, in turn). A mirrored action's lateness is the viewer's receipt of
its ``mirror`` (``time.time()`` when ``recv()`` returned) minus the presenter's send
(``time.time()`` just before ``send()``): same machine, same clock. Baseline: one viewer, same
server, a room of its own. Clients: the ``websockets`` library, 1-2 processes on the same cores.

With ``--two-processes``, two servers share a PostgreSQL and a Redis it starts (docs/scaling.md,
"Presenter rooms"): the presenter is on A, the viewers split between A and B (B's through Redis).

    python -m bench rooms                  # 200 viewers, 300 actions at 10/s
    python -m bench rooms --viewers 50 --count 100 --procs 1
    python -m bench rooms --two-processes  # 100 viewers on A, 100 on B
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
from typing import Any

from kit.cleanup import Tracked, install_cleanup
from kit.cpu import CpuMeter
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_mb, fmt_ms, lateness_rows, ratio, spread
from kit.workers import Worker, all_viewers, client_cpu, client_row, crew, results, stop_all

from tests.postgres_server import PostgresServer
from tests.redis_server import RedisServer

QUICK = {"viewers": 50, "count": 100, "procs": 1}


def make_room(port: int, capture: str) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        body = json.dumps({"capture": capture})
        connection.request("POST", "/api/rooms", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        answer: dict[str, Any] = json.loads(response.read())
        if response.status != 201:
            raise RuntimeError(f"POST /api/rooms: {response.status} {answer}")
    finally:
        connection.close()
    answer["key"] = answer["presenter_url"].split("#key=", 1)[1]
    return answer


def run_phase(servers: list[Server], viewers: int, args: argparse.Namespace) -> dict[str, Any]:
    """The presenter on the first server; the viewers split between the servers."""
    room = make_room(servers[0].port, args.capture)
    spec = {"port": servers[0].port, "room": room["room"]}
    presenter = Worker(
        "presenter", {**spec, "key": room["key"], "count": args.count, "rate": args.rate}
    )
    base = presenter.wait("ready", 60)["seq"]
    shares = [viewers // len(servers) + (i < viewers % len(servers)) for i in range(len(servers))]
    sides = [
        crew("roomview", {"port": s.port, "room": room["room"], "last_seq": base + args.count},
             n, max(1, args.procs // len(servers)))
        for s, n in zip(servers, shares, strict=True) if n
    ]  # fmt: skip
    workers = [w for side in sides for w in side]
    attached = sum(w.wait("ready", 180)["attached"] for w in workers)
    before, cpu = [s.stats() for s in servers], CpuMeter().start()
    t0 = time.monotonic()
    presenter.send("go")
    sent_result = presenter.wait("result", args.count / args.rate + 60)
    done = [results(side, 120) for side in sides]
    wall = time.monotonic() - t0
    after, machine = [s.stats() for s in servers], cpu.stop()
    stop_all([*workers, presenter])
    sent = sent_result["sent"]
    lateness: list[float] = []
    by_side: list[dict[str, float]] = []
    complete = 0
    views: list[dict[str, Any]] = []
    for side_done in done:
        side: list[float] = []
        for view in all_viewers(side_done):
            arrived = {int(seq): t for seq, t in view["arrived"].items()}
            side += [
                t - sent[seq - base - 1]
                for seq, t in arrived.items()
                if 0 < seq - base <= len(sent)
            ]
            complete += view["ok"] and len(arrived) == args.count
            views.append(view)
        lateness += side
        by_side.append(spread(side))
    return {
        "viewers": viewers,
        "attached": attached,
        "room": room["room"],
        "complete": complete,
        "received": len(lateness),
        "order_errors": sum(v.get("order_errors", 0) for v in views),
        "failures": [v.get("error") for v in views if v.get("error")][:5],
        "refused": sent_result["errors"],
        "lateness": spread(lateness),
        "lateness_by_process": by_side,
        "server_cpu_s": sum(a["cpu_s"] - b["cpu_s"] for a, b in zip(after, before, strict=True)),
        "server_threads": after[0]["worker_threads"],
        "server_rss": after[0]["worker_rss"],
        "wall_s": wall,
        "machine": machine,
        "client": client_cpu([*(d for side in done for d in side), sent_result]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--count", type=int, default=300, help="presenter actions")
    parser.add_argument("--rate", type=float, default=10.0, help="presenter actions per second")
    parser.add_argument(
        "--capture", default="demos/tool-calls-parallel", help="what the room shows"
    )
    parser.add_argument("--threads", type=int, default=256, help="gunicorn threads")
    parser.add_argument("--procs", type=int, default=2, help="viewer client processes")
    parser.add_argument("--target-p95-ms", type=float, default=100.0)
    parser.add_argument(
        "--two-processes",
        action="store_true",
        help="two servers sharing PostgreSQL and Redis; presenter on A, viewers split",
    )
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    title = "Presenter rooms: viewers following one presenter"
    packages = (*PACKAGES, "redis", "psycopg") if args.two_processes else PACKAGES
    header(packages=packages, title=title + (" on 2 processes" if args.two_processes else ""))
    backends: list[Tracked[Any]] = []
    env: dict[str, str] = {}
    if args.two_processes:
        backends = [
            Tracked(PostgresServer(max_connections=600).start()),
            Tracked(RedisServer().start()),
        ]
        env = {
            "STREAMSCOPE_DATABASE_URL": backends[0].server.url,
            "STREAMSCOPE_REDIS_URL": backends[1].server.url,
        }
    servers = [
        Server(threads=args.threads, env=env).start() for _ in range(2 if args.two_processes else 1)
    ]
    for name, server in zip("AB", servers, strict=False):
        print(f"server {name}: `{server.describe()}`")
    print(
        f"room: {args.capture}; {args.count} actions at {args.rate:g}/s "
        f"({args.count / args.rate:.0f} s); viewers join first; clients: {args.procs} process(es)"
        + ("; presenter on A, viewers split A/B, PostgreSQL and redis-server on loopback\n"
           if args.two_processes else "\n")
    )  # fmt: skip
    try:
        base = run_phase(servers[:1], 1, args)  # one viewer, on the presenter's process
        many = run_phase(servers, args.viewers, args)
    finally:
        for server in servers:
            server.stop()
        for backend in backends:
            backend.stop()
    n, count = args.viewers, args.count
    table = Table(f"Presenter rooms: {n} viewers, {count} actions at {args.rate:g}/s")
    table.row(
        "viewers with every mirrored action, in order",
        f"{many['complete']}/{n} (attached {many['attached']}, order errors {many['order_errors']})",
        f"{base['complete']}/1",
        "",
        f"{n}/{n}",
        many["complete"] == n and base["complete"] == 1,
    )
    lb, lm = base["lateness"], many["lateness"]
    lateness_rows(table, lm, lb, "presenter's send -> viewer's recv", args.target_p95_ms)
    if args.two_processes:
        for name, side in zip(
            ("on A (the presenter's)", "on B (through Redis)"),
            many["lateness_by_process"],
            strict=False,
        ):
            table.row(
                f"lateness p50 / p95, viewers {name}",
                f"{fmt_ms(side['p50'])} / {fmt_ms(side['p95'])}",
            )
    table.row("lateness samples (actions x viewers)", f"{lm['n']:,}", f"{lb['n']:,}")
    table.row(
        "presenter actions refused (rate, key)",
        str(len(many["refused"])),
        str(len(base["refused"])),
        "",
        "0",
        not many["refused"] and not base["refused"],
    )
    table.row(
        "server CPU during the actions (master + worker, every server)",
        f"{many['server_cpu_s']:.2f} s in {many['wall_s']:.1f} s ({1000 * many['server_cpu_s'] / max(1, count):.1f} ms per action)",
        f"{base['server_cpu_s']:.2f} s in {base['wall_s']:.1f} s",
        ratio(many["server_cpu_s"], base["server_cpu_s"]),
    )
    table.row(
        "server worker threads / RSS at the end",
        f"{many['server_threads']} / {fmt_mb(many['server_rss'])}",
        f"{base['server_threads']} / {fmt_mb(base['server_rss'])}",
    )
    table.row(
        "machine CPU busy during the actions (2 cores = 100%)",
        f"{100 * many['machine'].machine_busy:.0f}%",
        f"{100 * base['machine'].machine_busy:.0f}%",
    )
    table.row(
        "other processes' CPU during the actions (not this bench)",
        f"{many['machine'].others_s:.1f} s: {many['machine'].others_text()}",
        f"{base['machine'].others_s:.1f} s",
    )
    client_row(table, f"{n} viewers + presenter", many["client"], many["wall_s"])
    print(table.render())
    if many["failures"]:
        print(f"\nfailures (first 5): {many['failures']}")
    code = table.verdict()
    name = "bench_rooms_2proc" if args.two_processes else "bench_rooms"
    save_json(name, {"baseline": base, "rooms": many, "failed": table.failed})
    return code


if __name__ == "__main__":
    sys.exit(main())
