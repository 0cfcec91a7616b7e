"""Live relay delay: from the upstream's write to the token on screen in the live page.

One run, about a minute: the fake OpenAI-compatible upstream (``tests/fake_upstream.py``,
in-process, free loopback port), a real ``streamscope serve`` (subprocess, free loopback port,
temporary data dir; both stopped at the end) and Debian's Chromium driven by Playwright. Prints
the command, the machine, the CPU load during the run and a Markdown table; exits 1 when a
target is missed (or a token is missing or out of order, or the page logged an error).

    python -m bench relay                          # 200 tokens/s for 15 s, then the floor
    python -m bench relay --rate 100 --count 500   # something quicker
    python -m bench relay --quick                  # 1,000 tokens (5 s), then the floor
    python -m bench relay --json bench/out/bench_relay.json
    python -m bench relay --static-override DIR    # try a page change (see below)
    python -m bench relay --trace t.json --profile p.cpuprofile   # where the time goes

What is measured
----------------
The live page (``/live``) is filled as a person would (base URL = the fake's URL, model
``rate:<rate>:<count>``), its player scrolled into view, and Run clicked. The fake writes
``count`` content chunks at ``rate`` per second, tokens ``"t0 "``, ``"t1 "``, ..., each with
``x_sent_ms`` (``time.time() * 1000`` when it was written). For each token i:

* **on screen** (the measure with the targets): the first animation frame after its
  ``[data-testid=token]`` element was inserted, minus ``x_sent_ms``. The frame is stamped in a
  ``requestAnimationFrame`` callback (the frame's style, layout and paint follow it at once):
  for an element inserted outside a frame (a websocket message handler), the next frame's
  callback; for one inserted by a frame callback (``requestAnimationFrame`` is wrapped, and the
  insertions are taken with ``MutationObserver.takeRecords()`` right after the callback), that
  frame. Targets: p50 < 10 ms, p99 < 50 ms; all ``count`` tokens must arrive, in order (the
  order of insertion and the final DOM are both checked).
* in the page, for the breakdown (information): when the websocket message carrying the token
  was dispatched in the page (``WebSocket`` is wrapped by the init script, so its listener runs
  first, in the same task) and when the element was inserted (the ``MutationObserver``).
* **baseline**: the same run followed by a plain websocket client in this process
  (``websockets``' sync client, our subprotocol, the server's origin,
  ``{"type": "open", "source": {"capture": id}}`` with the id from the page's share link),
  stamping ``time.time()`` as each message is received: the server's share. The client
  attaches a moment after the run starts; tokens written before it attached reach it as one
  backlog message and are left out of its numbers (their count is shown).
* **floor** (information; ``--no-floor`` skips it): after the live page, a second run of the
  same model started from a minimal page on the same origin and in the same Chromium (a plain
  ``WebSocket``, ``JSON.parse``, one ``<span>`` per token appended in the message handler, in
  2 KB ``.block`` divs like the player's text areas), measured the same way: what this machine
  and browser cost without the rest of Streamscope's page.
* server (information): the server stamps each upstream read with ``t`` (ms since the request
  started, monotonic); ``t + c - x_sent_ms``, with ``c`` chosen so that the fastest read counts
  as 0, shows how late reads are against the best one (the upstream thread starved: parsing,
  recording, the GIL, the CPU); and from the read to the websocket client.

Both clocks are this machine's wall clock: ``time.time()`` in Python, and in the page
``Date.now()`` refined to sub-millisecond (``performance.now()`` calibrated on a ``Date.now()``
tick at start, checked again at the end: "page clock check"). The CPU line splits the machine's
load between this bench's processes (by kind) and everything else: on a shared machine, other
processes' load moves the numbers, so read it with them.

The instrumentation is an init script (``bench/js/relay_init.js``, added with
``page.add_init_script``: Playwright injects it through the DevTools protocol, so the page's
CSP, which forbids eval, does not apply). Polling uses
``page.evaluate`` (the CSP forbids ``page.wait_for_function``). Nothing in app/, static/ or
templates/ is changed: ``--static-override DIR`` serves ``/static/<path>`` from ``DIR/<path>``
where that file exists (through ``page.route``), to measure a page change before making it;
``--trace`` records a Chromium trace of the live run and ``--profile`` the page's JS CPU
profile, each summarized after the table. The runs are in ``relay_runs.py``, the analysis and
the table in ``relay_report.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kit.browser import VIEWPORT, launch, script
from kit.devtools import profile_summary, profile_table, trace_totals
from kit.report import header, parse_args, write_json
from relay_report import analyse_baseline, analyse_page, build_table
from relay_runs import floor_page_run, live_page_run

from tests.chromium import CHROMIUM
from tests.fake_upstream import FakeUpstream
from tests.live_server import LiveServer

QUICK = {"count": 1000}


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Streamscope live relay delay (Chromium)")
    parser.add_argument("--rate", type=float, default=200.0, help="tokens/s (default 200)")
    parser.add_argument("--count", type=int, default=3000, help="tokens (default 3000)")
    parser.add_argument("--no-floor", action="store_true", help="skip the minimal-page floor run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument(
        "--static-override",
        type=Path,
        metavar="DIR",
        help="serve the page's /static/<path> from DIR/<path> where that file exists "
        "(e.g. DIR/js/player.js), to measure a change before making it",
    )
    parser.add_argument("--trace", type=Path, help="record a Chromium trace of the live run")
    parser.add_argument("--profile", type=Path, help="record the page's JS CPU profile")
    return parse_args(parser, argv, QUICK)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The fake upstream, a server and Chromium; the live page, then the floor page."""
    from playwright.sync_api import sync_playwright

    result: dict[str, Any] = {"rate": args.rate, "count": args.count}
    tmp = Path(tempfile.mkdtemp(prefix="bench-relay-"))
    fake = FakeUpstream().start()
    try:
        with LiveServer(tmp / "data") as server, sync_playwright() as playwright:
            browser = launch(playwright)
            result["browser"] = browser.version
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(script("relay_init"))
            live = live_page_run(args, browser, context, server.url, fake.url)
            floor = None if args.no_floor else floor_page_run(args, context, server.url, fake.url)
            context.close()
            browser.close()
    finally:
        fake.stop()
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result["page"] = analyse_page(live["recorded"], args.count)
    result["baseline"] = analyse_baseline(live)
    for key in ("end_reason", "status", "cpu"):
        result[key] = live[key]
    result["page_errors"] = live["errors"]
    if floor is not None:
        result["floor"] = analyse_page(floor["recorded"], args.count)
        for key in ("end_reason", "cpu", "errors"):
            result["floor"][key] = floor[key]
    return result


def print_details(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """What the table leaves out: the run, the CPU, errors."""
    page, base = result["page"], result["baseline"]
    print(
        f"run: model rate:{args.rate:g}:{args.count} ({args.count / args.rate:.0f} s of tokens); "
        f"{page['messages']} websocket messages in the page; ws client attached "
        f"{base['attached_ms_after_click'] or float('nan'):.0f} ms after Run; "
        f"page clock check {page['clock_check_ms']:+.2f} ms; viewport "
        f"{VIEWPORT['width']}x{VIEWPORT['height']}"
        + (f"; static override {args.static_override}" if args.static_override else "")
    )
    print(result["cpu"].line("live page run"))
    floor = result.get("floor")
    if floor:
        print(floor["cpu"].line("floor run"))
        if floor["errors"] or floor["end_reason"] != "done":
            print(f"floor run: end {floor['end_reason']}, errors {floor['errors']}")
    if base["error"]:
        print(f"ws client error: {base['error']}")
    if result["page_errors"]:
        print("page errors:\n  " + "\n  ".join(result["page_errors"]))


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM}", file=sys.stderr)
        return 2
    load_start = os.getloadavg()
    started = time.monotonic()
    result = run(args)
    table = build_table(args, result)
    header(
        packages=["playwright", "websockets", "simple-websocket", "flask-sock", "httpx"],
        browser=result["browser"],
        argv=argv,
    )
    print(
        f"took {time.monotonic() - started:.0f} s; load average at start "
        f"{'/'.join(f'{x:.2f}' for x in load_start)}"
    )
    print_details(args, result)
    print()
    print(table.render())
    if args.trace:
        print(f"\nChromium trace {args.trace}, renderer main thread (nested events overlap):")
        print("| what | total | count |\n|---|---|---|")
        for name, total, n in trace_totals(args.trace)[:24]:
            print(f"| {name} | {total:.0f} ms | {n} |")
    if args.profile:
        print(f"\nJS CPU profile {args.profile}, by total time (self + callees), top 20:")
        print(profile_table(profile_summary(json.loads(args.profile.read_text())), 20))
    if args.json:
        for part in ("page", "floor"):
            if result.get(part):
                result[part].pop("sent", None)
        result["baseline"].pop("following_set", None)
        write_json(args.json, result)
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
