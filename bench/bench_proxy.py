"""Latency the recording proxy adds to each read, against the same stream read straight from
the upstream in the same run (docs/proxy.md, "What it costs").

    python -m bench proxy            # 3,000 reads at 200/s, then 50 streams for 30 s
    python -m bench proxy --quick    # 1,000 reads, then 50 streams for 10 s
    python -m bench proxy --json bench/out/bench_proxy.json

What is measured
----------------
The fake OpenAI-compatible upstream (``tests/fake_upstream.py``, in its own process:
``kit.fake``) writes ``count`` chunks at ``rate`` per second, each with ``x_sent_ms``
(``time.time() * 1000`` just before the write). A real ``streamscope serve --production``
(gunicorn gthread, one worker, 64 threads; ``STREAMSCOPE_PROXY_UPSTREAMS=fake=...``) proxies
and records. Client processes (``kit.clients`` role ``proxy``: raw sockets on an asyncio loop)
read each stream and stamp every socket read with ``time.time()``; a token's latency is its
read's receipt minus its ``x_sent_ms``. Every stream of a part asks for the fake's
``gate:`` model, whose writes start together once every answer's head has arrived, so that
direct and proxied streams are read at the same moments by the same clients.

* **time to first token**: ``calls`` requests one after another, proxied and direct in turn,
  each for the fake's ``rate:1000:3`` (its first token written as soon as its head): the time
  from the request's last byte leaving the client to the socket read that carries the first
  token, on a fresh connection each (the connection's set-up included for both). Added TTFT =
  the proxied calls' percentile minus the direct calls' (information: the proxy opens its own
  connection to the upstream and starts the call's recording first).
* **one stream** (the targets): one stream through the proxy and one straight from the fake,
  ``rate`` 200 reads/s, in the same client process. Added latency = the proxied stream's
  percentile minus the direct stream's: p50 < 1 ms, p99 < 5 ms.
* **50 streams**: 50 proxied streams and 5 direct ones (two client processes), ``rate_50``
  reads/s each (50 by default: 2,500 reads/s through the proxy, an LLM's pace), on this
  machine's two cores shared by the server, the fake and the clients. Added latency p50 < 1 ms
  (the proxied streams' p50 minus the direct streams').

Each read the proxy relays is also recorded (parsed, redacted, written to SQLite) after it is
written to the client: the numbers include that work. The CPU line says how busy the machine
was and who made it busy.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import kit  # noqa: F401  (puts the repository on sys.path)
from kit.cleanup import install_cleanup
from kit.cpu import CpuMeter
from kit.fake import Fake
from kit.report import header, parse_args, save_json, write_json
from kit.server import PACKAGES, Server
from kit.table import Table, fmt_ms, pct, spread
from kit.workers import Worker

CHAT = "/v1/chat/completions"


def part(
    server: Server, fake: Fake, name: str, proxied: int, direct: int, rate: float, count: int,
    processes: int, in_step: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """``proxied`` streams through the proxy and ``direct`` ones from the fake, spread over
    ``processes`` clients, gated to start together; each stream's writes offset by its own
    phase within the interval (all at once with ``in_step``); every token's lateness by kind."""
    settle(server)
    kinds = [("proxy", server.port, f"/proxy/fake{CHAT}")] * proxied
    kinds += [("direct", fake.port, CHAT)] * direct
    interval_ms = 1000 / rate
    streams = [
        {
            "label": label,
            "port": port,
            "path": path,
            "model": f"gate:{name}:{rate:g}:{count}"
            + ("" if in_step else f":{interval_ms * i / len(kinds):.3f}"),
        }
        for i, (label, port, path) in enumerate(kinds)
    ]
    workers = [
        Worker("proxy", {"streams": streams[i::processes]}, name=f"{name}-{i}")
        for i in range(processes)
    ]
    for worker in workers:
        ready = worker.wait("ready", 60)
        assert ready["ok"], f"a stream was refused: {ready}"
    meter = CpuMeter().start()
    fake.go(name)
    results = [worker.wait("result", count / rate + 120) for worker in workers]
    cpu = meter.stop()
    for worker in workers:
        worker.stop()
    lateness: dict[str, list[float]] = {"proxy": [], "direct": []}
    tokens: dict[str, list[int]] = {"proxy": [], "direct": []}
    for result in results:
        for label, per_stream in result["lateness"].items():
            for values in per_stream:
                lateness[label] += values
                tokens[label].append(len(values))
    return {
        "lateness": lateness,
        "tokens": tokens,
        "cpu": cpu,
        "clients": [r["client"] for r in results],
    }


def first_token_ms(port: int, path: str) -> float:
    """One call on a fresh connection: ms from the request sent to the first token's read."""
    body = json.dumps({"model": "rate:1000:3", "stream": True, "messages": []}).encode()
    request = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer sk-bench-0000\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request)
        sent, got, first = time.perf_counter(), b"", None
        while not got.endswith(b"0\r\n\r\n"):
            piece = sock.recv(65536)
            if not piece:
                break
            got += piece
            if first is None and b'"t0 "' in got:
                first = time.perf_counter()
    assert first is not None and got.startswith(b"HTTP/1.1 200"), got[:300]
    return (first - sent) * 1000


def ttft_part(server: Server, fake: Fake, calls: int) -> dict[str, list[float]]:
    """``calls`` proxied and ``calls`` direct, in turn (the order swapped every other call)."""
    settle(server)
    kinds = [("proxy", server.port, f"/proxy/fake{CHAT}"), ("direct", fake.port, CHAT)]
    got: dict[str, list[float]] = {"proxy": [], "direct": []}
    for i in range(calls):
        for label, port, path in kinds if i % 2 else kinds[::-1]:
            got[label].append(first_token_ms(port, path))
    return got


def settle(server: Server, timeout: float = 30) -> None:
    """Until the server holds no call of a part before (each holds a unit of slow work)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        health = server.healthz()
        if health["slow_requests"] == 0 and health["live_runs"] == 0:
            return
        time.sleep(0.1)
    raise RuntimeError(f"the server still holds calls: {health}")


def ttft_rows(table: Table, got: dict[str, list[float]]) -> None:
    proxy, direct = got["proxy"], got["direct"]
    for q in (50, 95):
        table.row(
            f"time to first token, {len(proxy)} calls each: added, p{q}",
            fmt_ms(pct(proxy, q) - pct(direct, q), 2),
            f"direct {fmt_ms(pct(direct, q), 2)}, proxied {fmt_ms(pct(proxy, q), 2)}",
        )


def added_rows(table: Table, label: str, got: dict[str, Any], targets: dict[int, float]) -> None:
    proxy, direct = got["lateness"]["proxy"], got["lateness"]["direct"]
    for q in (50, 95, 99):
        added = pct(proxy, q) - pct(direct, q)
        target = targets.get(q)
        table.row(
            f"{label}: added latency per read, p{q}",
            fmt_ms(added, 2),
            f"direct {fmt_ms(pct(direct, q), 2)}, proxied {fmt_ms(pct(proxy, q), 2)}",
            "",
            f"< {target:g} ms" if target is not None else "",
            None if target is None else added < target,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=200.0, help="reads per second, one stream")
    parser.add_argument("--count", type=int, default=3000, help="reads of the one stream")
    parser.add_argument("--streams", type=int, default=50, help="proxied streams at once")
    parser.add_argument("--rate-50", type=float, default=50.0, help="reads per second, each")
    parser.add_argument("--seconds-50", type=float, default=30.0, help="how long they stream")
    parser.add_argument("--calls", type=int, default=200, help="calls for the TTFT, each way")
    parser.add_argument("--threads", type=int, default=64, help="gunicorn threads")
    parser.add_argument("--json", help="write the results here too")
    args = parse_args(parser, argv, {"count": 1000, "seconds_50": 10, "calls": 60})
    install_cleanup()
    header("Recording proxy: latency added per read", PACKAGES)
    fake = Fake()
    env = {"STREAMSCOPE_PROXY_UPSTREAMS": f"fake=http://127.0.0.1:{fake.port}"}
    server = Server(threads=args.threads, env=env).start()
    print(f"server: {server.describe()}")
    ttft = ttft_part(server, fake, args.calls)
    one = part(server, fake, "one", 1, 1, args.rate, args.count, 1)
    count_50 = int(args.rate_50 * args.seconds_50)
    many = part(server, fake, "many", args.streams, 5, args.rate_50, count_50, 2)
    burst = part(server, fake, "burst", args.streams, 5, args.rate_50, count_50, 2, in_step=True)
    stats = server.stats()
    server.stop()
    fake.stop()
    print(one["cpu"].line(f"one stream at {args.rate:g}/s"))
    print(many["cpu"].line(f"{args.streams} streams at {args.rate_50:g}/s"))
    print(burst["cpu"].line(f"{args.streams} streams at {args.rate_50:g}/s, in step"))
    table = Table()
    complete = all(n == args.count for n in one["tokens"]["proxy"] + one["tokens"]["direct"])
    complete_50 = all(
        n == count_50
        for got in (many, burst)
        for n in got["tokens"]["proxy"] + got["tokens"]["direct"]
    )
    table.row("every token arrived, both parts", "yes" if complete and complete_50 else "no",
              "", "", "all", complete and complete_50)  # fmt: skip
    ttft_rows(table, ttft)
    added_rows(table, f"1 stream, {args.rate:g} reads/s", one, {50: 1.0, 99: 5.0})
    added_rows(table, f"{args.streams} streams, {args.rate_50:g} reads/s each", many, {50: 1.0})
    added_rows(table, f"{args.streams} streams in step (every write at once)", burst, {})
    table.row(
        "server CPU (worker, whole run)",
        f"{stats['worker_cpu_s']:.1f} s",
        f"{args.count + 2 * args.streams * count_50:,} proxied reads",
    )
    print()
    print(table.render())
    results = {
        "args": vars(args),
        "ttft": {k: spread(v) for k, v in ttft.items()},
        "one": {k: spread(v) for k, v in one["lateness"].items()},
        "many": {k: spread(v) for k, v in many["lateness"].items()},
        "burst": {k: spread(v) for k, v in burst["lateness"].items()},
        "clients": {"one": one["clients"], "many": many["clients"], "burst": burst["clients"]},
    }
    print(f"\nresults: {save_json('bench_proxy', results)}")
    if args.json:
        write_json(Path(args.json), results)
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
