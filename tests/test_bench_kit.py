"""The benches' shared kit (bench/kit/): the one percentile, the one table, --quick, the CPU
meter. Every bench's published numbers go through these; and the floors they compare with."""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import gen_dialects  # noqa: E402
from kit.cpu import CpuMeter  # noqa: E402
from kit.report import parse_args  # noqa: E402
from kit.table import Table, fmt_ms, pct  # noqa: E402


def test_pct_interpolates_between_the_closest_ranks():
    assert pct([4.0, 1.0, 3.0, 2.0], 50) == 2.5 == statistics.median([1.0, 2.0, 3.0, 4.0])
    values = [float(v * v) for v in range(1, 41)]
    # statistics' "inclusive" method is numpy's default (linear) interpolation
    expected = statistics.quantiles(values, n=100, method="inclusive")
    for q in (5, 50, 95, 99):
        assert pct(values, q) == pytest.approx(expected[q - 1])
    assert pct(values, 0) == 1.0
    assert pct(values, 100) == 1600.0
    assert pct([7.0], 99) == 7.0
    assert math.isnan(pct([], 50))


def test_an_information_row_and_a_missed_target():
    table = Table("Title | with a bar")
    table.row("measure a", "1 ms")
    table.row("measure b", "12 ms", "floor 3 ms", "4.00x", "<= 2x", False)
    table.row("measure c", "a|b", "", "", "all", True)
    lines = table.render().splitlines()
    assert lines[0] == "### Title | with a bar"
    assert lines[2] == "| measure | value | baseline | ratio | target | pass |"
    assert lines[4] == "| measure a | 1 ms | - | - | (information) | - |"
    assert lines[5] == "| measure b | 12 ms | floor 3 ms | 4.00x | <= 2x | **FAIL** |"
    assert lines[6] == "| measure c | a\\|b | - | - | all | PASS |"
    assert table.failed == ["measure b: 12 ms (4.00x) (target <= 2x)"]
    assert table.verdict() == 1
    assert Table().verdict() == 0


def test_fmt_ms():
    assert fmt_ms(12.34) == "12.3 ms"
    assert fmt_ms(12.34, 0) == "12 ms"
    assert fmt_ms(1234.0) == "1.23 s"
    assert fmt_ms(float("nan")) == "n/a"


def test_quick_gives_smaller_defaults_and_arguments_still_win():
    def arguments(argv: list[str]) -> tuple[int, int]:
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--count", type=int, default=3000)
        parser.add_argument("--repeat", type=int, default=5)
        args = parse_args(parser, argv, {"count": 100, "repeat": 1})
        return args.count, args.repeat

    assert arguments([]) == (3000, 5)
    assert arguments(["--quick"]) == (100, 1)
    assert arguments(["--quick", "--count", "7"]) == (7, 1)


def test_cpu_meter_counts_a_child_that_has_exited_as_ours():
    meter = CpuMeter().start()
    burn = "import time\nwhile time.process_time() < 0.5:\n    pass"
    subprocess.run([sys.executable, "-c", burn], check=True)  # reaped before stop()
    use = meter.stop()
    assert use.ours_s >= 0.45
    assert use.machine_s >= use.ours_s * 0.9  # the machine was at least as busy as we were
    assert use.others_s == pytest.approx(max(0.0, use.machine_s - use.ours_s))


def test_the_checked_event_stream_floor_checks_both_crcs():
    # bench_parse.py's information row says what checking the CRCs costs: it must check them.
    data = b"".join(gen_dialects.bedrock(20, seed=1))
    frame_end = int.from_bytes(data[:4], "big")
    assert gen_dialects.floor_checked("bedrock-converse", data) == gen_dialects.floor(
        "bedrock-converse", data
    )
    for at in (9, frame_end - 20):  # the prelude CRC, then the payload under the message CRC
        damaged = data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]
        with pytest.raises(ValueError, match="bad CRC"):
            gen_dialects.floor_checked("bedrock-converse", damaged)


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_runner_lists_every_benchmark_file():
    listed = _bench()
    assert listed.returncode == 0, listed.stderr
    names = {line.split()[0] for line in listed.stdout.splitlines()[2:] if line.strip()}
    expected = {p.stem.removeprefix("bench_").replace("_", "-") for p in BENCH.glob("bench_*.py")}
    assert expected <= names
    assert {"parse", "proxy", "relay", "gen-capture", "load-slow"} <= names


def test_the_runner_runs_a_module_and_refuses_an_unknown_name(tmp_path):
    out = tmp_path / "tiny.sse"
    ran = _bench("gen-capture", "--chunks", "20", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    assert out.read_bytes().count(b"data: ") >= 20
    unknown = _bench("no-such-bench")
    assert unknown.returncode == 2
    assert "unknown benchmark 'no-such-bench'" in unknown.stderr
