"""What OpenTelemetry export adds to each read the recording proxy relays: the same stream
through a server with export on and one with it off, in the same run (docs/otel.md, "What it
costs").

    python -m bench otel            # 3,000 reads at 200/s per stream, 20 short calls/s each
    python -m bench otel --quick    # 1,000 reads, the same churn
    python -m bench otel --json bench/out/bench_otel.json

What is measured
----------------
The fake OpenAI-compatible upstream (``tests/fake_upstream.py``, its own process: ``kit.fake``)
writes ``count`` chunks at ``rate`` per second, each stamped with ``x_sent_ms``. Two real
``streamscope serve --production`` (gunicorn gthread, one worker, ``threads`` threads each)
proxy and record the same upstream: **off** without ``STREAMSCOPE_OTLP_ENDPOINT``, **on** with
it pointing at an OTLP/HTTP receiver in the bench's own process (a ``ThreadingHTTPServer`` that
answers 200 and decodes each ``/v1/traces`` body with ``opentelemetry-proto``, to count the
spans it was sent; metrics are pushed to it too, every 30 s). One client process
(``kit.clients`` role ``proxy``) reads three gated streams at the same moments: one through
**off**, one through **on**, one straight from the fake, and stamps every socket read; a read's
latency is its receipt minus its ``x_sent_ms``.

A span is made when a call ends, so a lone stream would pay for its own span only after its last
read. Meanwhile, then, a churn thread makes short proxied calls (the fake's ``rate:1000:3``, on
fresh connections) at ``churn`` calls per second to each server in turn, so that **on** ends
calls, hands them to its exporter, computes their spans and sends them while the measured
stream's reads go through it. **Added per read** = the **on** stream's percentile minus the
**off** stream's (target: p50 < 0.1 ms). **off** minus direct is the proxy's own cost, for
scale. The server CPU line says what export costs each server's worker in all (both handled the
same calls). Every churn call's span must have reached the receiver, none dropped.

Both servers, the fake, the client and the receiver share this machine's cores: the numbers
include that contention, alike for both servers.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import kit  # noqa: F401  (puts the repository on sys.path)
from bench_proxy import CHAT, first_token_ms, settle
from kit.cleanup import install_cleanup
from kit.cpu import CpuMeter
from kit.fake import Fake
from kit.report import header, parse_args, save_json, write_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_ms, pct, spread
from kit.workers import Worker
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

PACKAGES_OTEL = (*PACKAGES, "opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http")


class Receiver:
    """An OTLP/HTTP receiver in this process: takes every POST, counts the spans it decodes."""

    def __init__(self) -> None:
        self.spans = 0
        self.requests = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    count = sum(
                        len(scope.spans)
                        for resource in request.resource_spans
                        for scope in resource.scope_spans
                    )
                    with receiver.lock:
                        receiver.spans += count
                        receiver.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def churn(servers: list[Server], per_second: float, stop: threading.Event) -> dict[str, int]:
    """Short proxied calls to each server in turn until ``stop``; how many each got."""
    made = {str(s.port): 0 for s in servers}
    interval = 1 / (per_second * len(servers))
    next_at = time.monotonic()
    while not stop.is_set():
        for server in servers:
            first_token_ms(server.port, f"/proxy/fake{CHAT}")
            made[str(server.port)] += 1
            next_at += interval
            time.sleep(max(0.0, next_at - time.monotonic()))
    return made


def measured(
    off: Server, on: Server, fake: Fake, rate: float, count: int, calls_per_s: float
) -> dict[str, Any]:
    settle(off)
    settle(on)
    name = "otel"
    streams = [
        {"label": label, "port": port, "path": path, "model": f"gate:{name}:{rate:g}:{count}"}
        for label, port, path in (
            ("off", off.port, f"/proxy/fake{CHAT}"),
            ("on", on.port, f"/proxy/fake{CHAT}"),
            ("direct", fake.port, CHAT),
        )
    ]
    worker = Worker("proxy", {"streams": streams}, name=name)
    ready = worker.wait("ready", 60)
    assert ready["ok"], f"a stream was refused: {ready}"
    stop = threading.Event()
    made: dict[str, int] = {}
    churner = threading.Thread(
        target=lambda: made.update(churn([off, on], calls_per_s, stop)), daemon=True
    )
    meter = CpuMeter().start()
    churner.start()
    fake.go(name)
    result = worker.wait("result", count / rate + 120)
    stop.set()
    churner.join(30)
    cpu = meter.stop()
    worker.stop()
    lateness: dict[str, list[float]] = {}
    for label, per_stream in result["lateness"].items():
        lateness[label] = [v for values in per_stream for v in values]
    return {"lateness": lateness, "cpu": cpu, "churn": made}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=200.0, help="reads per second, each stream")
    parser.add_argument("--count", type=int, default=3000, help="reads of each stream")
    parser.add_argument("--churn", type=float, default=20.0, help="short calls/s to each server")
    parser.add_argument("--threads", type=int, default=16, help="gunicorn threads, each server")
    parser.add_argument("--json", help="write the results here too")
    args = parse_args(parser, argv, {"count": 1000})
    install_cleanup()
    header("OpenTelemetry export: latency added per proxied read, on vs off", PACKAGES_OTEL)
    fake = Fake()
    receiver = Receiver()
    upstream = {"STREAMSCOPE_PROXY_UPSTREAMS": f"fake=http://127.0.0.1:{fake.port}"}
    off = Server(threads=args.threads, env=upstream).start()
    on = Server(threads=args.threads, env={**upstream, "STREAMSCOPE_OTLP_ENDPOINT": receiver.url})
    on.start()
    print(f"off: {off.describe()}\non:  {on.describe()}")
    got = measured(off, on, fake, args.rate, args.count, args.churn)
    calls_on = got["churn"].get(str(on.port), 0) + 1  # the churn's and the measured stream
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        otlp = on.healthz()["otlp"]
        if otlp["exported"] + otlp["dropped"] >= calls_on:
            break
        time.sleep(0.2)
    otlp = on.healthz()["otlp"]
    stats_off, stats_on = off.stats(), on.stats()
    off.stop()
    on.stop()
    fake.stop()
    receiver.stop()
    print(got["cpu"].line(f"3 streams at {args.rate:g}/s, {args.churn:g} calls/s to each server"))
    lat = got["lateness"]
    table = Table()
    complete = all(len(lat.get(k, [])) == args.count for k in ("off", "on", "direct"))
    table.row("every read arrived, three streams", "yes" if complete else "no", "", "", "all",
              complete)  # fmt: skip
    sent_all = otlp["exported"] == calls_on and otlp["dropped"] == 0 and receiver.spans == calls_on
    table.row(
        "spans: exported / dropped / received",
        f"{otlp['exported']} / {otlp['dropped']} / {receiver.spans}",
        f"{calls_on} calls through on ({receiver.requests} export requests)",
        "",
        "every call's span, none dropped",
        sent_all,
    )
    for q in (50, 95, 99):
        added = pct(lat["on"], q) - pct(lat["off"], q)
        target = 0.1 if q == 50 else None
        table.row(
            f"export on vs off: added per read, p{q}",
            fmt_ms(added, 3),
            f"off {fmt_ms(pct(lat['off'], q), 3)}, on {fmt_ms(pct(lat['on'], q), 3)}",
            "",
            f"< {target:g} ms" if target is not None else "",
            None if target is None else added < target,
        )
    for q in (50, 99):
        table.row(
            f"the proxy itself (off vs direct), p{q}",
            fmt_ms(pct(lat["off"], q) - pct(lat["direct"], q), 3),
            f"direct {fmt_ms(pct(lat['direct'], q), 3)}",
        )
    table.row(
        "server CPU (worker, whole run): on - off",
        f"{stats_on['worker_cpu_s'] - stats_off['worker_cpu_s']:+.2f} s",
        f"off {stats_off['worker_cpu_s']:.2f} s, on {stats_on['worker_cpu_s']:.2f} s",
    )
    print()
    print(table.render())
    results = {
        "args": vars(args),
        "lateness": {k: spread(v) for k, v in lat.items()},
        "churn": got["churn"],
        "otlp": otlp,
        "received_spans": receiver.spans,
        "cpu_s": {"off": stats_off["worker_cpu_s"], "on": stats_on["worker_cpu_s"]},
    }
    print(f"\nresults: {save_json('bench_otel', results)}")
    if args.json:
        write_json(Path(args.json), results)
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
