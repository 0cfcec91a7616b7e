"""Presenter rooms: many viewers (websocket clients) follow one presenter (docs/teaching.md).

A room is made for a demo (``POST /api/rooms``) on ``streamscope serve --production``; the
presenter joins with its key and every viewer joins the room (each gets the capture replayed,
as a page does); then the presenter sends ``count`` actions at ``rate`` per second (seek, step,
play, pause, speed, token, tool, theme, zoom, in turn). A mirrored action's lateness is the viewer's receipt of
its ``mirror`` (``time.time()`` when ``recv()`` returned) minus the presenter's send
(``time.time()`` just before ``send()``): same machine, same clock. Baseline: one viewer, same
server, a room of its own. Clients: the ``websockets`` library, 1-2 processes on the same cores.

    python bench/bench_rooms.py                  # 200 viewers, 300 actions at 10/s
    python bench/bench_rooms.py --viewers 50 --count 100 --procs 1
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
from typing import Any

from kit.cleanup import install_cleanup
from kit.cpu import CpuMeter
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_mb, fmt_ms, ratio, spread
from kit.workers import Worker, all_viewers, client_cpu, client_row, crew, results, stop_all

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


def run_phase(server: Server, viewers: int, args: argparse.Namespace) -> dict[str, Any]:
    room = make_room(server.port, args.capture)
    spec = {"port": server.port, "room": room["room"]}
    presenter = Worker(
        "presenter", {**spec, "key": room["key"], "count": args.count, "rate": args.rate}
    )
    base = presenter.wait("ready", 60)["seq"]
    workers = crew("roomview", {**spec, "last_seq": base + args.count}, viewers, args.procs)
    attached = sum(w.wait("ready", 180)["attached"] for w in workers)
    before, cpu = server.stats(), CpuMeter().start()
    t0 = time.monotonic()
    presenter.send("go")
    sent_result = presenter.wait("result", args.count / args.rate + 60)
    done = results(workers, 120)
    wall = time.monotonic() - t0
    after, machine = server.stats(), cpu.stop()
    stop_all([*workers, presenter])
    sent = sent_result["sent"]
    views = all_viewers(done)
    lateness: list[float] = []
    complete = 0
    for view in views:
        arrived = {int(seq): t for seq, t in view["arrived"].items()}
        lateness += [
            t - sent[seq - base - 1] for seq, t in arrived.items() if 0 < seq - base <= len(sent)
        ]
        complete += view["ok"] and len(arrived) == args.count
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
        "server_cpu_s": after["cpu_s"] - before["cpu_s"],
        "server_threads": after["worker_threads"],
        "server_rss": after["worker_rss"],
        "wall_s": wall,
        "machine": machine,
        "client": client_cpu([*done, sent_result]),
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
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(packages=PACKAGES, title="Presenter rooms: viewers following one presenter")
    server = Server(threads=args.threads).start()
    print(f"server: `{server.describe()}`")
    print(
        f"room: {args.capture}; {args.count} actions at {args.rate:g}/s "
        f"({args.count / args.rate:.0f} s); viewers join first; clients: {args.procs} process(es)\n"
    )
    try:
        base = run_phase(server, 1, args)
        many = run_phase(server, args.viewers, args)
    finally:
        server.stop()
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
    table.row(
        "lateness p50 (presenter's send -> viewer's recv)",
        fmt_ms(lm["p50"]),
        fmt_ms(lb["p50"]),
        ratio(lm["p50"], lb["p50"]),
    )
    table.row(
        "lateness p95",
        fmt_ms(lm["p95"]),
        f"1 viewer {fmt_ms(lb['p95'])}",
        ratio(lm["p95"], lb["p95"]),
        f"< {args.target_p95_ms:g} ms",
        lm["p95"] < args.target_p95_ms,
    )
    table.row("lateness p99", fmt_ms(lm["p99"]), fmt_ms(lb["p99"]), ratio(lm["p99"], lb["p99"]))
    table.row("lateness max", fmt_ms(lm["max"]), fmt_ms(lb["max"]), ratio(lm["max"], lb["max"]))
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
        "server CPU during the actions (master + worker)",
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
    save_json("bench_rooms", {"baseline": base, "rooms": many, "failed": table.failed})
    return code


if __name__ == "__main__":
    sys.exit(main())
