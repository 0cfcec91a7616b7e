"""Uploads under load: many large uploads at once are stored whole or refused clearly.

A ``--mb`` MiB capture (``bench/gen_capture.py``: OpenAI chunks with logprobs; nothing in it
looks like a secret, so the stored bytes are the uploaded bytes) is uploaded once alone (the
baseline), then ``--uploads`` times at once (``POST /api/captures``, raw body, each with its own
title, released together by a barrier). Each answer must be 201, or 503 with error code
``busy`` (the importer parses at most ``max_concurrent_imports`` at once and makes the next
wait ``WAIT_FOR_SLOT`` seconds). Then nothing half-written may remain:

* every 201's ``GET /api/captures/<id>`` answers 200 and ``GET /api/captures/<id>/raw`` has the
  uploaded bytes' sha256;
* the SQLite file (``<data dir>/streamscope.db``, opened read-only) has exactly one
  ``captures`` row per 201 (and the baseline's), each with its ``capture_parts`` and the
  uploaded size, and no ``capture_parts`` without a ``captures`` row.

    python -m bench load-uploads                 # 20 uploads of 10 MiB at once
    python -m bench load-uploads --uploads 8 --mb 2
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
import threading
import time
from collections import Counter
from typing import Any

from kit.cleanup import install_cleanup
from kit.cpu import CpuMeter
from kit.report import header, parse_args, save_json
from kit.server import PACKAGES, Server, upload
from kit.table import Table, fmt_mb, fmt_s, pct, ratio

QUICK = {"uploads": 6, "mb": 2.0}


def make_capture(mb: float) -> bytes:
    import gen_capture

    return gen_capture.capture_bytes(int(mb * 1048576 / 750))  # about 750 bytes a chunk


def download_sha(port: int, capture_id: str) -> tuple[int, int, str]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", f"/api/captures/{capture_id}")
        meta = conn.getresponse()
        meta.read()
        conn.request("GET", f"/api/captures/{capture_id}/raw")
        raw = conn.getresponse()
        body = raw.read()
        return meta.status, raw.status, hashlib.sha256(body).hexdigest()
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--mb", type=float, default=10.0, help="capture size, MiB")
    parser.add_argument("--threads", type=int, default=64, help="gunicorn threads")
    args = parse_args(parser, argv, QUICK)
    install_cleanup()
    header(
        packages=PACKAGES,
        title="Uploads: concurrent large uploads are stored whole or refused clearly",
    )
    data = make_capture(args.mb)
    sha = hashlib.sha256(data).hexdigest()
    server = Server(threads=args.threads).start()
    print(f"server: `{server.describe()}`")
    print(
        f"capture: bench/gen_capture.py, {fmt_mb(len(data))}, sha256 {sha[:16]}...; {args.uploads} at once\n"
    )
    results: list[tuple[int, dict[str, Any], float]] = []
    try:
        before = server.stats()
        status, body, base_s = upload(server.port, data, "baseline")
        assert status == 201, (status, body)
        base_id = body["id"]
        base_cpu = server.stats()["cpu_s"] - before["cpu_s"]

        barrier = threading.Barrier(args.uploads)
        lock = threading.Lock()

        def one(i: int) -> None:
            barrier.wait()
            try:
                answer = upload(server.port, data, f"concurrent-{i}")
            except Exception as exc:
                answer = (0, {"error": {"code": f"{type(exc).__name__}: {exc}"}}, 0.0)
            with lock:
                results.append(answer)

        before, cpu = server.stats(), CpuMeter().start()
        t0 = time.monotonic()
        threads = [threading.Thread(target=one, args=(i,)) for i in range(args.uploads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        wall = time.monotonic() - t0
        machine, after = cpu.stop(), server.stats()

        created = [body["id"] for status, body, _ in results if status == 201]
        checks = [download_sha(server.port, cid) for cid in [base_id, *created]]
        health = server.healthz()
        db_path = server.data_dir / "streamscope.db"
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT id, size, sha256 FROM captures").fetchall()
            parts = dict(
                db.execute(
                    "SELECT capture_id, SUM(LENGTH(data)) FROM capture_parts GROUP BY capture_id"
                ).fetchall()
            )
            orphans = db.execute(
                "SELECT COUNT(*) FROM capture_parts WHERE capture_id NOT IN (SELECT id FROM captures)"
            ).fetchone()[0]
        finally:
            db.close()
    finally:
        server.stop()

    n = args.uploads
    statuses = Counter(status for status, _, _ in results)
    codes = Counter(
        (status, (body.get("error") or {}).get("code"))
        for status, body, _ in results
        if status != 201
    )
    clear = all(
        status == 201 or (status == 503 and (body.get("error") or {}).get("code") == "busy")
        for status, body, _ in results
    )
    ok_times = [s for status, _, s in results if status == 201]
    busy_times = [s for status, _, s in results if status == 503]
    expected_ids = {base_id, *created}
    stored_ids = {r[0] for r in rows}
    rows_ok = (
        stored_ids == expected_ids
        and all(size == len(data) and digest == sha for _, size, digest in rows)
        and all(parts.get(i) == len(data) for i in stored_ids)
        and orphans == 0
    )
    downloads_ok = all(m == 200 and r == 200 and d == sha for m, r, d in checks)

    table = Table(f"Uploads: {n} x {fmt_mb(len(data))} at once")
    table.row(
        "answers: 201 or 503 busy, nothing else",
        ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))
        + (f" (non-201: {dict(codes)})" if codes else ""),
        "alone: 201",
        "",
        f"{n} answers, each 201 or 503 busy",
        clear and len(results) == n,
    )
    table.row(
        "stored (201), at least one",
        f"{len(created)}/{n}",
        "",
        "",
        ">= 1",
        len(created) >= 1,
    )
    table.row(
        "every 201: metadata 200 and raw download with the uploaded sha256",
        f"{sum(1 for m, r, d in checks if m == 200 and r == 200 and d == sha)}/{len(checks)} (baseline included)",
        "",
        "",
        "all",
        downloads_ok,
    )
    table.row(
        "SQLite (read-only): captures rows = the 201s; sizes, sha256 and parts whole; no orphan parts",
        f"{len(rows)} rows for {len(expected_ids)} 201s; orphan parts {orphans}",
        "",
        "",
        "exactly the 201s",
        rows_ok,
    )
    table.row(
        "upload time, 201s: p50 / max",
        f"{fmt_s(pct(ok_times, 50))} / {fmt_s(max(ok_times, default=float('nan')))}",
        f"alone {fmt_s(base_s)}",
        ratio(pct(ok_times, 50), base_s),
    )
    if busy_times:
        table.row(
            "time to the 503 busy answer: p50 / max",
            f"{fmt_s(pct(busy_times, 50))} / {fmt_s(max(busy_times))}",
        )
    table.row(
        "server CPU (master + worker); per stored upload",
        f"{after['cpu_s'] - before['cpu_s']:.1f} s in {wall:.1f} s; "
        f"{(after['cpu_s'] - before['cpu_s']) / max(1, len(created)):.2f} s",
        f"alone {base_cpu:.2f} s",
        ratio((after["cpu_s"] - before["cpu_s"]) / max(1, len(created)), base_cpu),
    )
    table.row(
        "worker RSS after / high-water mark (VmHWM)",
        f"{fmt_mb(after['worker_rss'])} / {fmt_mb(after['worker_rss_peak'])}",
    )
    table.row(
        "/healthz afterwards",
        f"{health.get('http_status')} {health.get('status')}, store {health.get('store')}",
    )
    table.row(
        "machine busy; other processes' CPU (not this bench)",
        f"{100 * machine.machine_busy:.0f}%; {machine.others_s:.1f} s: {machine.others_text()}",
    )
    print(table.render())
    code = table.verdict()
    save_json(
        "uploads",
        {
            "statuses": dict(statuses),
            "codes": {str(k): v for k, v in codes.items()},
            "created": len(created),
            "rows": len(rows),
            "orphans": orphans,
            "times_201": ok_times,
            "times_503": busy_times,
            "failed": table.failed,
        },
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
