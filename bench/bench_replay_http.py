"""Replay first paint, over HTTP vs over the websocket: many viewers open one shared capture at
the same moment on a ``serve --production`` server.

A capture (``bench/gen_capture.py``: OpenAI chunks with logprobs, 5 alternatives each) is
uploaded twice (two ids, same bytes). Phases, in this order, each with its viewers started
together (client processes wait for ``go``):

* websocket, warm: N viewers connect, send ``open`` and read to ``end`` (``kit/clients/replay``,
  as ``load_fanout_replay.py``); first paint = the first ``events`` message;
* HTTP, warm: N viewers ``GET`` the capture's versioned timeline URL (``timeline_url`` of its
  metadata, what the player page fetches) with a browser's ``Accept-Encoding``
  (``kit/clients/httpreplay``); first paint = the document received, decoded and parsed (the
  page shows nothing before it has it all);
* HTTP, cold: N viewers on the second capture, never opened before (its first request parses
  it, builds the document and compresses it once; the others wait for that);
* websocket, warm again, to show the order did not favour HTTP.

"Warm" phases are preceded by one viewer of each kind. Every viewer checks every event (all
streams, ``seq`` continuous). Target: HTTP warm first-paint p95 < ``--target-first-p95-ms``.

    python -m bench replay-http                 # 200 viewers, 1,000-chunk capture
    python -m bench replay-http --quick         # 50 viewers, 300 chunks
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kit.cleanup import install_cleanup
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server, http_get, upload
from kit.table import Table, fmt_mb, fmt_ms, pct, ratio
from kit.workers import client_cpu as client_cpu_of
from kit.workers import (
    client_row,
    failures,
    measured,
)

QUICK = {"viewers": 50, "chunks": 300, "procs": 1}


def run_phase(
    server: Server, role: str, spec: dict[str, Any], viewers: int, procs: int
) -> dict[str, Any]:
    phase = measured(server, role, {"port": server.port, **spec}, viewers, procs)
    views = phase.views
    first = [v["first_events_ms"] for v in views if "first_events_ms" in v]
    return {
        "viewers": viewers,
        "ok": sum(1 for v in views if v["ok"]),
        "failures": failures(views, ("error", "end", "events", "expected_events", "seq_errors")),
        "bytes_per_viewer": max((v["bytes"] for v in views), default=0),
        "coding": next((v.get("coding") for v in views if v.get("coding")), None),
        "first_p50": pct(first, 50),
        "first_p95": pct(first, 95),
        "first_max": max(first, default=float("nan")),
        "head_p95": pct([v["headers_ms"] for v in views if "headers_ms" in v], 95),
        "connect_p95": pct([v["connect_ms"] for v in views if "connect_ms" in v], 95),
        "parse_p50": pct([v["parse_ms"] for v in views if "parse_ms" in v], 50),
        "server_cpu_s": phase.server_cpu_s,
        "wall_s": phase.wall_s,
        "machine": phase.machine,
        "client": client_cpu_of(phase.done),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=1000, help="token chunks in the capture")
    parser.add_argument("--threads", type=int, default=256, help="gunicorn threads")
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument("--target-first-p95-ms", type=float, default=1000.0)
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(packages=(*PACKAGES, "brotli"), title="Replay first paint: HTTP vs websocket")
    import gen_capture

    data = gen_capture.capture_bytes(args.chunks)
    server = Server(threads=args.threads).start()
    print(f"server: `{server.describe()}`")
    print(
        f"capture: bench/gen_capture.py, {args.chunks:,} token chunks with logprobs, {fmt_mb(len(data))}, "
        f"uploaded twice; clients: {args.procs} process(es)\n"
    )
    n = args.viewers
    try:
        paths = []
        for title in ("warm", "cold"):
            status, body, _ = upload(server.port, data, f"replay-http-{title}")
            assert status == 201, (status, body)
            meta_status, meta = http_get(server.port, f"/api/captures/{body['id']}")
            assert meta_status == 200, meta
            paths.append((body["id"], json.loads(meta)["timeline_url"]))
        (warm_id, warm_url), (_, cold_url) = paths
        ws = {"source": {"capture": warm_id}}
        run_phase(server, "replay", ws, 1, 1)  # warm-ups: one viewer of each kind
        run_phase(server, "replayhttp", {"path": warm_url}, 1, 1)
        ws_warm = run_phase(server, "replay", ws, n, args.procs)
        http_warm = run_phase(server, "replayhttp", {"path": warm_url}, n, args.procs)
        http_cold = run_phase(server, "replayhttp", {"path": cold_url}, n, args.procs)
        ws_again = run_phase(server, "replay", ws, n, args.procs)
    finally:
        server.stop()
    table = Table(f"Replay first paint: {n} viewers open one {fmt_mb(len(data))} capture at once")
    phases = (
        ("websocket, warm", ws_warm),
        ("HTTP, warm", http_warm),
        ("HTTP, cold (first open of the capture)", http_cold),
        ("websocket, warm, again after HTTP", ws_again),
    )
    for label, phase in phases:
        table.row(
            f"{label}: viewers with the whole timeline (all events, seq continuous)",
            f"{phase['ok']}/{n}",
            "",
            "",
            f"{n}/{n}",
            phase["ok"] == n,
        )
    for label, phase in phases:
        is_target = phase is http_warm
        table.row(
            f"{label}: first events p50 / p95 / max",
            f"{fmt_ms(phase['first_p50'])} / {fmt_ms(phase['first_p95'])} / {fmt_ms(phase['first_max'])}",
            "" if phase is ws_warm else f"websocket warm p95 {fmt_ms(ws_warm['first_p95'])}",
            "" if phase is ws_warm else ratio(phase["first_p95"], ws_warm["first_p95"]),
            f"p95 < {args.target_first_p95_ms:g} ms" if is_target else "",
            phase["first_p95"] < args.target_first_p95_ms if is_target else None,
        )
    for label, phase in phases[1:3]:
        table.row(
            f"{label}: connect p95; response head p95; one viewer's decode + parse + check p50",
            f"{fmt_ms(phase['connect_p95'])}; {fmt_ms(phase['head_p95'])}; {fmt_ms(phase['parse_p50'])}",
            "",
            "",
            "(information: the parse runs after every viewer has its answer, as each browser has its own CPU)",
        )
    for label, phase in phases:
        coding = f" ({phase['coding']})" if phase["coding"] else ""
        table.row(
            f"{label}: bytes per viewer; server CPU (master + worker)",
            f"{fmt_mb(phase['bytes_per_viewer'])}{coding}; {phase['server_cpu_s']:.2f} s "
            f"({1000 * phase['server_cpu_s'] / n:.1f} ms per viewer) in {phase['wall_s']:.1f} s",
        )
    table.row(
        "machine CPU busy; other processes' CPU (not this bench), HTTP warm phase",
        f"{100 * http_warm['machine'].machine_busy:.0f}%; {http_warm['machine'].others_s:.1f} s: "
        f"{http_warm['machine'].others_text()}",
    )
    client_row(table, f"{n} viewers, HTTP warm", http_warm["client"], http_warm["wall_s"])
    client_row(table, f"{n} viewers, websocket warm", ws_warm["client"], ws_warm["wall_s"])
    print(table.render())
    for label, phase in phases:
        if phase["failures"]:
            print(f"\n{label}: failures (first 5): {phase['failures']}")
    save_json(
        "replay_http",
        {label: phase for label, phase in phases} | {"failed": table.failed},
    )
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
