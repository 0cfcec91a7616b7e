"""bench_relay.py's two runs in Chromium: the live page followed by a plain websocket client
(the baseline), and the minimal page (the floor). The page instrumentation is
``bench/js/relay_init.js`` (``window.__relay``); ``relay_collect.js`` reads it out."""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Any

from kit.browser import script, wait_for, watch_errors
from kit.cpu import CpuMeter
from kit.devtools import TRACE_CATEGORIES, start_profiler, stop_profiler

from app.protocol import SUBPROTOCOL


class Follower:
    """A plain websocket client (``websockets``' sync client, in this process) following a
    live run by its capture id, stamping ``time.time()`` as each message is received."""

    def __init__(self, server_url: str, capture_id: str) -> None:
        self.url, self.capture_id = server_url, capture_id
        self.ws: Any = None
        self.received: list[tuple[float, str]] = []  # (time.time() in ms, message text)
        self.attached: float | None = None  # its capture message came: following from then on
        self.error: str | None = None
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, name="relay-baseline", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect
        from websockets.typing import Origin, Subprotocol

        try:
            with connect(
                self.url.replace("http://", "ws://", 1) + "/ws",
                origin=Origin(self.url),
                subprotocols=[Subprotocol(SUBPROTOCOL)],
                compression=None,
                max_size=None,
                proxy=None,
                ping_interval=None,
            ) as self.ws:
                self.ws.send(json.dumps({"type": "open", "source": {"capture": self.capture_id}}))
                while True:
                    text = str(self.ws.recv(timeout=60))
                    now = time.time() * 1000
                    self.received.append((now, text))  # parsed afterwards: nothing slow here
                    if self.attached is None and text.startswith('{"type":"capture"'):
                        self.attached = now
                    if text.startswith(('{"type":"end"', '{"type":"error"')):
                        break
        except ConnectionClosed:
            self.error = "connection closed before end"
        except Exception as exc:  # reported with the results
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.ended.set()

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()

    def results(self) -> dict[str, Any]:
        """Per token (index, x_sent_ms, received, raw index), and each raw event's server t."""
        tokens: list[tuple[int, float | None, float, int]] = []
        reads: dict[int, float] = {}
        for received, text in self.received:
            message = json.loads(text)
            if message["type"] == "raw_meta":
                for offset, t in enumerate(message["t"]):
                    reads[message["start"] + offset] = t
                continue
            if message["type"] != "events":
                continue
            sent = {
                e["raw"]: e["fields"]["x_sent_ms"]
                for e in message["events"]
                if e["kind"] == "extra" and "x_sent_ms" in (e.get("fields") or {})
            }
            for event in message["events"]:
                if event["kind"] == "text" and event["text"].startswith("t"):
                    i = int(event["text"][1:].strip())
                    tokens.append((i, sent.get(event["raw"]), received, event["raw"]))
        return {"tokens": tokens, "reads": reads}


def override_static(page: Any, base_url: str, directory: Path) -> None:
    """Serve /static/<path> from ``directory``/<path> where that file exists (an experiment)."""
    prefix = base_url + "/static/"
    types = {".js": "text/javascript", ".css": "text/css"}

    def handle(route: Any) -> None:
        relative = route.request.url[len(prefix) :].split("?", 1)[0]
        local = directory / relative
        if local.is_file():
            kind = types.get(local.suffix, "application/octet-stream")
            route.fulfill(status=200, content_type=kind, body=local.read_bytes())
        else:
            route.continue_()

    page.route(prefix + "**", handle)


def live_page_run(
    args: argparse.Namespace, browser: Any, context: Any, server_url: str, fake_url: str
) -> dict[str, Any]:
    """The live page: fill the form, Run, follow with the baseline client, collect."""
    out: dict[str, Any] = {}
    page = context.new_page()
    errors = watch_errors(page)
    if args.static_override:
        override_static(page, server_url, args.static_override)
    page.goto(server_url + "/live")
    wait_for(page, "() => window.__relay && window.__relay.observing && !!window.streamscope", 15)
    page.get_by_test_id("live-base-url").fill(fake_url)
    page.get_by_test_id("live-model").fill(f"rate:{args.rate:g}:{args.count}")
    # The player is under the form: bring the streams into view, as someone watching would.
    page.locator('[data-testid="streams"]').scroll_into_view_if_needed()
    if args.trace:
        browser.start_tracing(page=page, path=str(args.trace), categories=TRACE_CATEGORIES)
    cdp = context.new_cdp_session(page) if args.profile else None
    if cdp is not None:
        start_profiler(cdp)
    meter = CpuMeter().start()
    follower: Follower | None = None
    try:
        page.get_by_test_id("live-run").click()
        out["clicked"] = time.time() * 1000
        href = wait_for(
            page,
            "() => document.querySelector('[data-testid=\"live-share-link\"]')?.getAttribute('href')",
            15,
            interval_ms=2,
        )
        follower = Follower(server_url, href.rstrip("/").rsplit("/", 1)[-1])
        wait_for(page, "() => document.querySelector('[data-testid=\"stream\"]')", 15)
        page.locator('[data-testid="streams"]').scroll_into_view_if_needed()
        end = "() => document.getElementById('player').dataset.endReason"
        out["end_reason"] = wait_for(page, end, args.count / args.rate + 60, interval_ms=250)
        out["cpu"] = meter.stop()
        follower.ended.wait(30)
        if args.trace:
            browser.stop_tracing()
        if cdp is not None:
            args.profile.write_text(json.dumps(stop_profiler(cdp)))
        page.wait_for_timeout(300)  # the last frame
        out["recorded"] = page.evaluate(script("relay_collect"))
        out["status"] = page.evaluate(
            "() => document.querySelector('[data-testid=player-status]')?.textContent"
        )
    finally:
        if follower is not None:
            follower.close()
    out["baseline"] = follower.results()
    out["baseline_attached"] = follower.attached
    out["baseline_error"] = follower.error
    out["errors"] = errors
    page.close()
    return out


def floor_page_run(
    args: argparse.Namespace, context: Any, server_url: str, fake_url: str
) -> dict[str, Any]:
    """The same run shown by a minimal page: what the machine and browser cost alone."""
    out: dict[str, Any] = {}
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server_url + "/bench-relay-floor")  # a 404 page: same origin, no page scripts
    wait_for(page, "() => !!window.__relay", 15)
    meter = CpuMeter().start()
    page.evaluate(
        script("relay_floor"),
        {
            "baseUrl": fake_url,
            "model": f"rate:{args.rate:g}:{args.count}",
            "subprotocol": SUBPROTOCOL,
        },
    )
    out["end_reason"] = wait_for(
        page, "() => window.__relay.floorEnd", args.count / args.rate + 60, interval_ms=250
    )
    out["cpu"] = meter.stop()
    page.wait_for_timeout(300)
    out["recorded"] = page.evaluate(script("relay_collect"))
    out["errors"] = [e for e in errors if "status of 404" not in e]  # the page itself
    page.close()
    return out
