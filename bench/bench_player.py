"""Browser benchmark: the player page in headless Chromium, on a real ``streamscope serve``.

One run, one server (free loopback port, temporary data dir, stopped at the end), Debian's
Chromium driven by Playwright. Prints the command, the machine, a Markdown table and how much
CPU other processes took during the run (the numbers are only meaningful on a quiet machine);
exits 1 when a target is missed.

    python -m bench player                    # all measures, about 3-4 minutes
    python -m bench player --skip-playback    # only the jumps (or --skip-jumps)
    python -m bench player --profile          # plus CDP CPU profiles: where time goes
    python -m bench player --json bench/out/bench_player.json
    python -m bench player --quick            # 5k / 1k tokens, 2 jumps, 10 s of play

Measures
--------
* Jump to the end. Captures from ``gen_capture.py`` (OpenAI SSE, logprobs with 5 alternatives
  per token) of 100k and 10k tokens, uploaded gzipped. Once ``#player[data-loaded=true]`` and
  the page is idle (no long task for 0.5 s), the heap is collected (CDP
  ``HeapProfiler.collectGarbage``) and End is pressed. Times are taken in the page with
  ``performance.now()``: from the ``keydown`` of End (a capturing listener on ``window``, so it
  runs before the page's own handler) to *settled* (no ``[data-rendering]`` element left (the
  renderer sets it on the streams element), ``renderer.busy`` false and
  ``renderer.rendered === renderer.target === timeline.length``) and to *painted* (the first
  animation frame after settling starts: the settled DOM has had its style, layout and paint).
  The targets use *painted*. Repeated ``--repeat`` times (default 5; Home between runs, which
  rewinds the DOM to empty); the value is the median, the runs are listed. After each jump the
  page must hold exactly one ``[data-testid=token]`` per token.
  Targets: painted(100k) <= 10x painted(10k); painted(100k) < 2 s; no long task (a
  ``PerformanceObserver`` of ``longtask`` entries) over 200 ms from the keydown to painted.
  One extra, instrumented jump per capture (not counted) wraps ``renderer._step`` and
  ``renderer._apply`` to split each frame into JS (applying a slice) and the rest (style,
  layout, paint, GC, waiting for the frame), reported for information.
* Playback at 1x. A ``streamscope.timed`` capture of 12,000 tokens at 200 tokens/s (first token
  at 350 ms, Gaussian jitter sd 1.5 ms, 3% of events coalesced into the previous read), so about
  60 s. Space starts it (its ``keydown`` time is the play time). ``renderer.moveTo`` is wrapped
  at run time to record when the last token event is applied, and how late the earliest newly
  applied event of each frame is (player clock minus its time: the per-frame lag). Drift =
  (time the last token was applied) - (play time + last token's ``t``), in ms per minute
  played; target < 50 ms/min. The player's clock is the wall clock, so this is the lateness of
  the last frame rather than an accumulated error; the trend of the median lateness (first vs
  last 10 s) is shown for information. Long tasks from play to the last token: target none
  over 50 ms. A requestAnimationFrame loop (from the init script, so it runs before the
  player's frame) samples how stale the screen is at the start of each frame: information, as
  are the frame intervals.

The instrumentation (``bench/js/player_init.js``) is injected with ``page.add_init_script``
(Playwright adds it through the DevTools protocol, so the page's CSP, which forbids eval, does
not apply) and checked at start: a 120 ms busy task must show up as a long task. Polling uses
``page.evaluate`` (the CSP forbids ``page.wait_for_function``). The measures are in
``player_page.py``, the rows in ``player_rows.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gen_capture
from kit.browser import VIEWPORT, launch, script
from kit.cpu import CpuMeter, CpuUse, machine_busy_share
from kit.devtools import profile_table
from kit.report import header, parse_args
from kit.server import upload
from kit.table import Table, fmt_ms, pct
from player_page import measure_jumps, measure_playback
from player_rows import jump_rows, playback_rows

from tests.chromium import CHROMIUM
from tests.live_server import LiveServer

# The 100k-token capture is 70 MB once its gzip is undone: over the default cap (50 MB).
SERVER_ENV = {"STREAMSCOPE_MAX_DECOMPRESSED_MB": "200"}
QUICK = {"big": 5000, "small": 1000, "repeat": 2, "play_tokens": 2000, "wait_quiet": 0.0}


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Streamscope player benchmark (Chromium)")
    parser.add_argument("--big", type=int, default=100_000, help="tokens (default 100000)")
    parser.add_argument("--small", type=int, default=10_000, help="tokens (default 10000)")
    parser.add_argument("--repeat", type=int, default=5, help="jumps per capture (default 5)")
    parser.add_argument("--play-tokens", type=int, default=12_000)
    parser.add_argument("--rate", type=float, default=200.0, help="tokens/s (default 200)")
    parser.add_argument("--skip-playback", action="store_true")
    parser.add_argument("--skip-jumps", action="store_true")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile one big jump and 10 s of playback (CDP), print hot spots",
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=30.0,
        help="wait up to this many seconds for the machine to be idle first (default 30)",
    )
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument(
        "--trace",
        type=Path,
        help="record a Chromium trace of the playback here and list what its long tasks hold",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    return parse_args(parser, argv, QUICK)


def make_captures(args: argparse.Namespace, tmp: Path) -> tuple[dict[str, bytes], float]:
    """The captures (generated fresh: deterministic, a few seconds), and the last token's
    time in the timed one (ms)."""
    captures: dict[str, bytes] = {}
    last_token_t = 0.0
    if not args.skip_jumps:
        for n in (args.small, args.big):
            path = tmp / f"capture-{n}.sse"
            gen_capture.write_capture(path, n)
            captures[f"sse-{n}"] = path.read_bytes()
    if not args.skip_playback:
        path = tmp / f"timed-{args.play_tokens}.ssjsonl"
        last_token_t = gen_capture.write_timed(path, args.play_tokens, args.rate)["last_token_t"]
        captures["timed"] = path.read_bytes()
    return captures, last_token_t


def measure(args: argparse.Namespace, tmp: Path, started: float) -> tuple[dict[str, Any], CpuUse]:
    """Upload the captures to a fresh server, then the jumps and the playback in Chromium."""
    from playwright.sync_api import sync_playwright

    meter = CpuMeter().start()
    captures, last_token_t = make_captures(args, tmp)
    gen_s = time.perf_counter() - started
    results: dict[str, Any] = {}
    with LiveServer(tmp / "data", env=SERVER_ENV) as server, sync_playwright() as pw:
        t = time.perf_counter()
        urls = {}
        for name, data in captures.items():
            status, answer, _ = upload(server.port, data, f"bench {name}", compress=True)
            assert status == 201, (status, answer)
            urls[name] = answer["url"]
        upload_s = time.perf_counter() - t
        browser = launch(pw)
        header(packages=["playwright"], browser=browser.version)
        print(
            f"server: `{' '.join(f'{k}={v}' for k, v in SERVER_ENV.items())} python -m app.cli "
            f"serve` on {server.url}, temp data dir; captures "
            f"generated in {gen_s:.1f} s, uploaded gzipped in {upload_s:.1f} s; viewport "
            f"{VIEWPORT['width']}x{VIEWPORT['height']}"
        )
        try:
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(script("player_init"))
            if not args.skip_jumps:
                small = measure_jumps(context, urls[f"sse-{args.small}"], args.small, args.repeat)
                big = measure_jumps(
                    context, urls[f"sse-{args.big}"], args.big, args.repeat, args.profile
                )
                print(f"instrumentation: {small['selftest']}")
                results["small"], results["big"] = small, big
            if not args.skip_playback:
                results["play"] = measure_playback(
                    context, urls["timed"], last_token_t, args.profile, args.trace
                )
            context.close()
        finally:
            cpu = meter.stop()
            browser.close()
    return results, cpu


def report(args: argparse.Namespace, results: dict[str, Any], cpu: CpuUse, started: float) -> Table:
    table = Table()
    print()
    if not args.skip_jumps:
        jump_rows(table, results["big"], results["small"])
    if not args.skip_playback:
        playback_rows(table, results["play"], args.rate, args.play_tokens)
        for line in results["play"].get("trace_long_tasks", []):
            print(f"trace: {line}")
    errors = [e for m in results.values() for e in m.get("errors", [])]
    table.row("page and console errors", str(len(errors)), "", "", "0", not errors)
    print(table.render())
    print(
        f"\njump value = median of {args.repeat} runs (Home between runs, heap collected before "
        "each); times from performance.now() in the page; "
        f"total bench time {time.perf_counter() - started:.0f} s"
    )
    print(cpu.line("the whole run"))
    if cpu.others_share > 0.15:
        print(
            "WARNING: other processes competed for the CPU during this run; the times are "
            "inflated and noisy. Rerun on a quiet machine before trusting them."
        )
    for name in ("big", "play") if args.profile else ():
        prof = results.get(name, {}).get("profile")
        if prof:
            print(
                f"\nCPU profile (CDP, 200 us sampling) of {prof['title']}: main thread busy "
                f"{fmt_ms(prof['busy_ms'], 0)}, by total time (self + callees):"
            )
            print(profile_table(prof, 25))
    for error in errors[:10]:
        print(f"page error: {error}")
    return table


def save(path: Path, results: dict[str, Any]) -> None:
    """The results, with the per-frame lists cut down to max, p99 and count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    slim = json.loads(json.dumps(results))
    for m in slim.values():
        for key in ("lateness", "stale", "gaps", "applied"):
            if key in m:
                m[key] = {"max": max(m[key], default=0), "p99": pct(m[key], 99), "n": len(m[key])}
    path.write_text(json.dumps(slim, indent=1))


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM}", file=sys.stderr)
        return 2
    deadline = time.monotonic() + args.wait_quiet
    while time.monotonic() < deadline and (share := machine_busy_share(3.0)) > 0.2:
        print(f"machine busy ({share:.0%} of the cores): waiting for it to calm down", flush=True)
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="streamscope-bench-player-"))
    try:
        results, cpu = measure(args, tmp, started)
        table = report(args, results, cpu, started)
        if args.json:
            save(args.json, results)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
