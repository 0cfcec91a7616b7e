"""Scale-out on Redis Streams: two production processes sharing PostgreSQL and Redis.

(a) Live fan-out across 2 processes: a live run is started on process A against the fake
upstream (own process, ``gate:<name>:<rate>:<count>``: it waits until every viewer has
attached, then writes ``count`` chunks at ``rate`` per second, each stamped with its wall-clock
write time); the viewers are split between A (the run's own process: its in-process hub) and B
(through Redis). Each viewer checks that it gets every event in order (``seq`` continuous,
tokens ``t0``, ``t1``, ... in order, end ``done``) and records each chunk's lateness: its
receipt time minus the fake's write time (same machine, same clock).

(b) Redis killed (SIGKILL, nothing saved) mid-run and started again: viewers on both
processes; the table gives the events each viewer got (all of them, in order), and how many
of B's viewers were told they followed the stored recording meanwhile (``status`` state
``fallback``) and then the live edge again (``live``).

(c) What a live read costs across Redis, before and after issue 27 section 1, measured in the
same run (``bench/live_input.py``: in this process, a real redis-server and SQLite; "before"
is a floor of the old approach kept there): bytes per read crossing Redis, encodes per read on
the run's process and parses per read on a mirror, CPU per read on each side, and a mirror's
refresh with Redis away at two recording lengths.

    python -m bench scale                        # (a) 200 viewers, 200 chunks/s x 4000; (b) 40 viewers; (c)
    python -m bench scale --quick                # a smoke run
    python -m bench scale --costs-only           # (c) alone, in about 20 s
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from kit.cleanup import Tracked, install_cleanup
from kit.cpu import CpuMeter
from kit.fake import Fake
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_ms, ratio, spread
from kit.workers import (
    Worker,
    all_viewers,
    crew,
    failures,
    results,
    split_lateness,
    stop_all,
)
from live_input import measure

from tests.postgres_server import PostgresServer
from tests.redis_server import RedisServer

QUICK = {"viewers": 40, "count": 600, "kill_viewers": 10, "kill_count": 300}


def viewers_on(server: Server, capture: str, n: int, args: argparse.Namespace, name: str,
               lean: bool) -> list[Worker]:  # fmt: skip
    spec = {"port": server.port, "capture": capture, "count": args.count, "lean": lean}
    workers = crew("follow", spec, n, args.procs)
    for w in workers:
        w.name = f"{name}:{w.name}"
    return workers


def phase(
    a: Server,
    b: Server,
    fake: Fake,
    name: str,
    split: tuple[int, int],
    rate: float,
    count: int,
    args: argparse.Namespace,
    during: Any = None,
) -> dict[str, Any]:
    model = f"gate:{name}:{rate:g}:{count}"
    starter = Worker("starter", {"port": a.port, "base_url": fake.url, "model": model})
    capture = starter.wait("started", 30)["capture"]
    lean = during is None and args.client == "lean"
    spec_args = argparse.Namespace(**{**vars(args), "count": count})
    on_a = viewers_on(a, capture, split[0], spec_args, "A", lean) if split[0] else []
    on_b = viewers_on(b, capture, split[1], spec_args, "B", lean) if split[1] else []
    attached = sum(w.wait("ready", 120)["attached"] for w in [*on_a, *on_b])
    cpu = CpuMeter().start()
    t0 = time.monotonic()
    fake.go(name)
    if during is not None:
        during()
    done_a = results(on_a, count / rate + 180)
    done_b = results(on_b, count / rate + 180)
    starter_result = starter.wait("result", 60)
    wall = time.monotonic() - t0
    machine = cpu.stop()
    stop_all([*on_a, *on_b, starter])
    views_a, views_b = all_viewers(done_a), all_viewers(done_b)
    return {
        "capture": capture,
        "attached": attached,
        "a": summarize(views_a),
        "b": summarize(views_b),
        "all": summarize([*views_a, *views_b]),
        "starter_end": (starter_result.get("end") or {}).get("reason"),
        "wall_s": wall,
        "machine_busy": machine.machine_busy,
        "others_s": machine.others_s,
        "others": machine.others_text(),
    }


def summarize(views: list[dict[str, Any]]) -> dict[str, Any]:
    events = [v["events"] for v in views]
    return {
        "n": len(views),
        "ok": sum(1 for v in views if v["ok"]),
        "seq_errors": sum(v["seq_errors"] for v in views),
        "token_errors": sum(v["token_errors"] for v in views),
        "events_min": min(events, default=0),
        "events_max": max(events, default=0),
        "lateness": spread([x for v in views for x in v["lateness"]]),
        "split": split_lateness(views),
        "fallback": sum(1 for v in views if "fallback" in v.get("states", [])),
        "back_live": sum(
            1
            for v in views
            if "fallback" in v.get("states", [])
            and "live" in v["states"][v["states"].index("fallback") :]
        ),
        "failures": failures(views, ("error", "end", "seq_errors", "token_errors", "tokens")),
    }


def costs_table(args: argparse.Namespace) -> Table:
    """(c): before and after, measured in this run (``bench/live_input.py``)."""
    costs = measure(args.cost_reads, list(args.lengths))
    save_json("bench_scale_costs", costs)
    c = costs["per_read"]
    table = Table(
        f"(c) A live read across Redis, {c['reads']} SSE chunks, each published before the "
        "next: after (the code as it is) against before (a floor of the old approach)"
    )
    table.row(
        "bytes per read crossing Redis",
        f"{c['bytes_after']:.0f} B (the recorded line)",
        f"{c['bytes_before']:.0f} B (raw_meta + events)",
        ratio(c["bytes_after"], c["bytes_before"]),
    )
    table.row(
        "encodes per read on the run's process, for Redis",
        f"{c['producer_encodes_after']:.2f}",
        f"{c['producer_encodes_before']:.2f}",
        target="0",
        ok=c["producer_encodes_after"] == 0,
    )
    table.row(
        "  its CPU per read (encoding the entry)",
        "0 us (the recorder's line)",
        f"{c['producer_cpu_before_us']:.1f} us",
    )
    table.row(
        "parses (orjson.loads) per read on a mirror",
        f"{c['mirror_parses_after']:.2f} (the recorded line: its input)",
        f"{c['mirror_parses_before']:.2f} (an events message, to count it; floor)",
    )
    table.row(
        "CPU per read on a mirror",
        f"{c['cpu_after_us']:.1f} us (builds the timeline, encodes it for its viewers: "
        f"{c['mirror_encodes_after']:.1f} encodes)",
        f"{c['cpu_before_us']:.1f} us (floor: split, type, parse to count)",
        ratio(c["cpu_after_us"], c["cpu_before_us"]),
    )
    table.row(
        "the mirror's timeline is the run's, event for event",
        str(c["same_timeline"]),
        target="True",
        ok=bool(c["same_timeline"]),
    )
    short, long = costs["refresh"]
    growth_after = long["after_ms"] / short["after_ms"]
    growth_before = long["before_ms"] / short["before_ms"]
    for part in (short, long):
        table.row(
            f"refresh with Redis away, recording of {part['length']:,} reads "
            f"({part['stored_bytes'] / 1e6:.2f} MB), one read new",
            f"{fmt_ms(part['after_ms'], 2)}, {part['bytes_after']:.0f} B read",
            f"{fmt_ms(part['before_ms'], 2)}, {part['bytes_before'] / 1e6:.2f} MB read",
            ratio(part["after_ms"], part["before_ms"]),
        )
    times = long["length"] / short["length"]
    table.row(
        f"  refresh cost growth for a {times:g}x longer recording",
        f"{growth_after:.1f}x",
        f"{growth_before:.1f}x",
        target=f"< {times / 2:g}x (not with the length)",
        ok=growth_after < times / 2,
    )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=200, help="(a): split between A and B")
    parser.add_argument("--rate", type=float, default=200.0, help="(a): chunks per second")
    parser.add_argument("--count", type=int, default=4000, help="(a): chunks in the run")
    parser.add_argument("--kill-viewers", type=int, default=40, help="(b): split between A and B")
    parser.add_argument("--kill-rate", type=float, default=50.0, help="(b): chunks per second")
    parser.add_argument("--kill-count", type=int, default=600, help="(b): chunks in the run")
    parser.add_argument("--kill-after", type=float, default=3.0, help="(b): seconds into the run")
    parser.add_argument("--down-for", type=float, default=3.0, help="(b): seconds Redis is away")
    parser.add_argument("--threads", type=int, default=256, help="gunicorn threads per process")
    parser.add_argument("--procs", type=int, default=2, help="client processes per server")
    parser.add_argument("--client", choices=("websockets", "lean"), default="lean")
    parser.add_argument("--target-p95-ms", type=float, default=100.0)
    parser.add_argument("--costs-only", action="store_true", help="(c) alone")
    parser.add_argument("--cost-reads", type=int, default=2000, help="(c): reads of the run")
    parser.add_argument("--lengths", type=int, nargs=2, default=[1000, 10000],
                        help="(c): the recordings' lengths (reads) for the refresh")  # fmt: skip
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    if args.costs_only:
        header(packages=(*PACKAGES, "redis"), title="Scale-out: a live read across Redis")
        table = costs_table(args)
        print(table.render())
        return table.verdict()
    header(
        packages=(*PACKAGES, "redis", "psycopg"), title="Scale-out: 2 processes, PostgreSQL, Redis"
    )
    # A connection per store-using thread (app/storage/sql.py): 2 x 256 threads, and a margin.
    postgres = Tracked(PostgresServer(max_connections=600).start())
    redis_server = RedisServer().start()
    redis_holder = Tracked(redis_server)
    env = {
        "STREAMSCOPE_DATABASE_URL": postgres.server.url,
        "STREAMSCOPE_REDIS_URL": redis_server.url,
    }
    fake = Fake()
    a = Server(threads=args.threads, env=env).start()
    b = Server(threads=args.threads, env=env).start()
    print(f"servers: A `{a.describe()}`; B the same on port {b.port}")
    print(
        f"redis-server on 127.0.0.1:{redis_server.port} (no persistence), PostgreSQL on "
        f"127.0.0.1:{postgres.server.port}; fake upstream pid {fake.pid}; clients: "
        f"{args.procs} process(es) per server, {args.client} client for (a), websockets for (b)\n"
    )

    def kill_and_restart() -> None:
        time.sleep(args.kill_after)
        redis_server.kill()
        time.sleep(args.down_for)
        redis_server.start()

    try:
        half = args.viewers // 2
        # Baseline, same servers and moment: every viewer on A, the run's own process.
        base = phase(a, b, fake, "single", (args.viewers, 0), args.rate, args.count, args)
        fan = phase(a, b, fake, "scale", (half, args.viewers - half), args.rate, args.count, args)
        k = args.kill_viewers // 2
        killed = phase(
            a, b, fake, "kill", (k, args.kill_viewers - k), args.kill_rate, args.kill_count,
            argparse.Namespace(**{**vars(args), "client": "websockets"}), kill_and_restart,
        )  # fmt: skip
    finally:
        a.stop()
        b.stop()
        fake.stop()
        redis_holder.stop()
        postgres.stop()
    n = args.viewers
    table = Table(
        f"(a) Live fan-out across 2 processes: {n} viewers ({half} on A, the run's, "
        f"{n - half} on B, through Redis), {args.rate:g} chunks/s x {args.count}"
    )
    every = fan["all"]
    table.row(
        "viewers with every event in order (seq continuous, all tokens, end done)",
        f"{every['ok']}/{n} (A {fan['a']['ok']}/{half}, B {fan['b']['ok']}/{n - half}; "
        f"seq errors {every['seq_errors']}, token errors {every['token_errors']})",
        target=f"{n}/{n}",
        ok=every["ok"] == n,
    )
    bl = base["all"]["lateness"]
    table.row(
        f"baseline: all {n} viewers on A (in-process hub), every event in order",
        f"{base['all']['ok']}/{n}",
        target=f"{n}/{n}",
        ok=base["all"]["ok"] == n,
    )
    for label, part in (("all viewers", every), ("on A (in-process hub)", fan["a"]),
                        ("on B (through Redis)", fan["b"])):  # fmt: skip
        late = part["lateness"]
        table.row(
            f"lateness p50 / p95 / p99 / max, {label}",
            f"{fmt_ms(late['p50'])} / {fmt_ms(late['p95'])} / {fmt_ms(late['p99'])} / "
            f"{fmt_ms(late['max'])}",
            f"all on A: {fmt_ms(bl['p50'])} / {fmt_ms(bl['p95'])} / {fmt_ms(bl['p99'])} / "
            f"{fmt_ms(bl['max'])}",
            f"p95 {ratio(late['p95'], bl['p95'])}",
            target=f"p95 < {args.target_p95_ms:g} ms",
            ok=late["p95"] < args.target_p95_ms,
        )
    for label, part in (("A", fan["a"]), ("B", fan["b"])):
        sp = part["split"]
        if sp:
            table.row(
                f"  on {label}: fake's write -> server A's read, p50/p95/p99 (upstream thread late)",
                f"{fmt_ms(sp['read_p50'])} / {fmt_ms(sp['read_p95'])} / {fmt_ms(sp['read_p99'])}",
            )
            table.row(
                f"  on {label}: server A's read -> viewer's recv, p50/p95/p99 (fan-out"
                + (")" if label == "A" else ", through Redis and B)"),
                f"{fmt_ms(sp['after_p50'])} / {fmt_ms(sp['after_p95'])} / {fmt_ms(sp['after_p99'])}",
            )
    table.row(
        "machine CPU busy during the run (2 cores = 100%)",
        f"{100 * fan['machine_busy']:.0f}%",
        f"{100 * base['machine_busy']:.0f}%",
    )
    table.row(
        "other processes' CPU during the run (not this bench)",
        f"{fan['others_s']:.1f} s: {fan['others']}",
        f"{base['others_s']:.1f} s",
    )
    kn = args.kill_viewers
    title = (
        f"(b) Redis killed (SIGKILL) {args.kill_after:g} s into a run of {args.kill_count} chunks "
        f"at {args.kill_rate:g}/s, started again {args.down_for:g} s later: {kn} viewers "
        f"({k} on A, {kn - k} on B)"
    )
    ktable = Table(title)
    expected = killed["all"]["events_max"]
    ktable.row(
        "viewers that ended with every event in order (end done)",
        f"{killed['all']['ok']}/{kn} (A {killed['a']['ok']}/{k}, B {killed['b']['ok']}/{kn - k})",
        target=f"{kn}/{kn}",
        ok=killed["all"]["ok"] == kn,
    )
    for label, part in (("A", killed["a"]), ("B", killed["b"])):
        ktable.row(
            f"events each viewer on {label} got (min / max)",
            f"{part['events_min']} / {part['events_max']}",
            target=f"all {expected} (seq errors {part['seq_errors']})",
            ok=part["events_min"] == expected and part["seq_errors"] == 0,
        )
    ktable.row(
        "viewers on B told they followed the stored recording, then the live edge again",
        f"fallback {killed['b']['fallback']}/{kn - k}, back live {killed['b']['back_live']}/{kn - k}",
        target=f"{kn - k}/{kn - k}",
        ok=killed["b"]["fallback"] == kn - k,
    )
    ktable.row("the run's own page (starter) ended", str(killed["starter_end"]), target="done",
               ok=killed["starter_end"] == "done")  # fmt: skip
    ctable = costs_table(args)
    print(table.render())
    print()
    print(ktable.render())
    print()
    print(ctable.render())
    table.failed.extend(ctable.failed)
    for part in (fan["all"], killed["all"]):
        if part["failures"]:
            print(f"\nfailures (first 5): {part['failures']}")
    table.failed.extend(ktable.failed)  # one verdict for both tables
    code = table.verdict()
    save_json("bench_scale", {"baseline": base, "fanout": fan, "kill": killed})
    return code


if __name__ == "__main__":
    sys.exit(main())
