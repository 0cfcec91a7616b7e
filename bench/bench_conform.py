"""What conform's checking costs: a full chat battery against the fake upstream, against the sum of its requests' own durations.

``streamscope conform`` records each answer in memory, reads it back, runs the case's check
and the rule catalogue on it and writes the captures (docs/conform.md). The baseline is what
the server takes: each request's duration as its recording says (request start to its end
line), a case's copies sent at once counted once (the longest). The battery runs one case at
a time (``--concurrency 1``) against the fake upstream in its own process (``kit/fake.py``,
the clean ``conform`` model: chunks 2 ms apart, so the checking weighs more here than against
a real model's pace). The target: the whole battery within 1.2x the sum of its requests.

    python -m bench conform             # the battery, --repeat 3 times (the best counts)
    python -m bench conform --repeat 1
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import orjson
from kit.fake import Fake
from kit.report import header
from kit.table import Table, fmt_ms

from app.conform.cases import CASES
from app.conform.runner import Options, run_battery
from app.live.apis import api_named

TARGET = 1.2
CHAT = [case for case in CASES if "chat" in case.apis]  # the battery `conform` runs by default


def requests_ms(out: Path) -> float:
    """The sum of the requests' durations in the captures under ``out`` (a case's copies at
    once: the longest)."""
    total = 0.0
    for case in CHAT:
        ends = []
        for path in sorted(out.glob(f"{case.name}.*jsonl")):
            last = orjson.loads(path.read_bytes().rstrip().rsplit(b"\n", 1)[-1])
            ends.append(float(last["t"]))
        if not ends:
            continue
        total += max(ends) if case.copies > 1 else sum(ends)
    return total


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench conform")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    header("conform: the battery against its requests' own durations", argv=argv)
    fake = Fake()
    try:
        best: tuple[float, float] | None = None
        verdicts: dict[str, int] = {}
        for _ in range(max(1, args.repeat)):
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder)
                options = Options(
                    base_url=fake.url,
                    api=api_named("chat"),
                    model="conform",
                    concurrency=1,
                    out=out,
                )
                started = time.monotonic()
                battery = run_battery(CHAT, options)
                wall = (time.monotonic() - started) * 1000
                requests = requests_ms(out)
            verdicts = {}
            for report in battery.reports:
                verdicts[report.verdict] = verdicts.get(report.verdict, 0) + 1
            if best is None or wall / requests < best[0] / best[1]:
                best = (wall, requests)
    finally:
        fake.stop()
    assert best is not None
    wall, requests = best
    table = Table(f"a chat battery of {len(CHAT)} cases, one at a time (best of {args.repeat})")
    table.row("verdicts", ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    ratio = wall / requests
    table.row(
        "battery wall time",
        fmt_ms(wall),
        f"{fmt_ms(requests)} (its requests)",
        f"{ratio:.2f}x",
        f"< {TARGET}x",
        ratio < TARGET,
    )
    print(table.render())
    return 0 if not table.failed and verdicts == {"pass": len(CHAT)} else 1
