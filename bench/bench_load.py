"""Production serving under load: every load and soak benchmark, one after another.

Each runs as its own process (``bench/load_*.py``), starts its own ``streamscope serve
--production`` (gunicorn gthread) and fake upstream on free loopback ports, stops them, prints
its Markdown table, and exits 1 when a target is missed; this prints a summary at the end and
exits 1 when any did. About 8 minutes on a 2-core machine (``--quick``: about 2).

    python -m bench load                          # all of them
    python -m bench load --only fanout-live       # one (repeat --only, or a, b)
    python -m bench load --quick                  # smaller sizes, a smoke run
    python -m bench load --only slow -- --normal 20   # extra arguments for the script

Benchmarks (names for --only):

* ``fanout-live``: 200 viewers follow one live run (fake upstream at 200 chunks/s for 20 s);
  every event in order, lateness p50/p95/p99 from the upstream's write; target p95 < 100 ms;
  baseline 1 viewer (load_fanout_live.py);
* ``fanout-replay``: 200 viewers open one uploaded capture at once, cold and warm; time to
  the first ``events`` and to ``end``, server CPU; baseline 1 viewer (load_fanout_replay.py);
* ``churn``: 1,000 connect/open/close cycles, then 50 viewers for 60 s on a live run; threads,
  RSS and fds against the baseline; a leak check over short live runs (load_churn.py);
* ``slow``: 40 viewers with and without 10 that never read; event rate kept >= 90%
  (load_slow.py);
* ``uploads``: 20 concurrent 10 MiB uploads: 201 or 503 busy, nothing half-written
  (load_uploads.py).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = {
    "fanout-live": "load_fanout_live.py",
    "fanout-replay": "load_fanout_replay.py",
    "churn": "load_churn.py",
    "slow": "load_slow.py",
    "uploads": "load_uploads.py",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", default=[], help=f"one of {', '.join(BENCHES)}")
    parser.add_argument(
        "--quick", action="store_true", help="each script's --quick: smaller sizes (a smoke run)"
    )
    parser.add_argument("extra", nargs="*", help="arguments passed to the script(s), after --")
    args = parser.parse_args(argv)
    names = [n.strip() for only in args.only for n in only.split(",") if n.strip()] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; known: {', '.join(BENCHES)}")
    results = []
    started = time.monotonic()
    for name in names:
        command = [
            sys.executable,
            str(HERE / BENCHES[name]),
            *(["--quick"] if args.quick else []),
            *args.extra,
        ]
        t0 = time.monotonic()
        print(f"\n---- {name}: {' '.join(command[1:])}\n", flush=True)
        code = subprocess.run(
            command, cwd=HERE.parent, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        ).returncode
        results.append((name, code, time.monotonic() - t0))
    print("\n## Summary\n")
    print("| benchmark | result | seconds |")
    print("|---|---|---|")
    for name, code, seconds in results:
        print(f"| {name} | {'PASS' if code == 0 else f'FAIL (exit {code})'} | {seconds:.0f} |")
    print(f"\ntotal {time.monotonic() - started:.0f} s")
    return 0 if all(code == 0 for _, code, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
