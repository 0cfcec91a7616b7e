"""Live relay delay: from the upstream's write to the token on screen in the live page.

One run, about a minute: the fake OpenAI-compatible upstream (``tests/fake_upstream.py``,
in-process, free loopback port), a real ``streamscope serve`` (subprocess, free loopback port,
temporary data dir; both stopped at the end) and Debian's Chromium driven by Playwright. Prints
the command, the machine, the CPU load during the run and a Markdown table; exits 1 when a
target is missed (or a token is missing or out of order, or the page logged an error).

    python bench/bench_relay.py                          # 200 tokens/s for 15 s, then the floor
    python bench/bench_relay.py --rate 100 --count 500   # something quicker
    python bench/bench_relay.py --json bench/out/bench_relay.json
    python bench/bench_relay.py --static-override DIR    # try a page change (see below)
    python bench/bench_relay.py --trace t.json --profile p.cpuprofile   # where the time goes

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
  (``simple_websocket.Client``, subprotocol ``streamscope.v1``, Origin ``http://127.0.0.1``,
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

The instrumentation is an init script (``page.add_init_script``: Playwright injects it through
the DevTools protocol, so the page's CSP, which forbids eval, does not apply). Polling uses
``page.evaluate`` (the CSP forbids ``page.wait_for_function``). Nothing in app/, static/ or
templates/ is changed: ``--static-override DIR`` serves ``/static/<path>`` from ``DIR/<path>``
where that file exists (through ``page.route``), to measure a page change before making it;
``--trace`` records a Chromium trace of the live run and ``--profile`` the page's JS CPU
profile, each summarized after the table.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import platform
import shlex
import shutil
import sys
import tempfile
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchkit import Table, wait_for  # noqa: E402

from app.protocol import SUBPROTOCOL  # noqa: E402
from tests.chromium import ARGS, CHROMIUM  # noqa: E402
from tests.fake_upstream import FakeUpstream  # noqa: E402
from tests.live_server import LiveServer  # noqa: E402

VIEWPORT = {"width": 1366, "height": 900}
ORIGIN = "http://127.0.0.1"
TARGET_P50_MS = 10.0
TARGET_P99_MS = 50.0

# Injected before any page script. Everything it records lives on window.__relay.
INIT_SCRIPT = r"""
(() => {
  if (window.__relay) return;
  // Wall clock with sub-ms resolution: Date.now() at one of its ticks, then performance.now().
  const calibrate = () => {
    const d0 = Date.now();
    let d1;
    while ((d1 = Date.now()) === d0);
    return d1 - performance.now();
  };
  const offset = calibrate();
  const wall = () => offset + performance.now();
  const R = (window.__relay = {
    offset, calibrate,
    tokens: [],       // {i, msg, ins, raf} in order of insertion
    other: 0,         // token elements whose text is not "t<i> "
    frames: [],       // [frame time, tokens first shown in that frame]
    messages: 0,
    dispatched: [],   // token index -> when the websocket message carrying it was dispatched
    unparsed: [],     // [dispatch time, text] of events messages not yet looked at
    observing: false,
  });

  // Stamp websocket messages as they are dispatched: this listener is added in the
  // constructor, so it runs before the page's own, in the same task.
  const Native = window.WebSocket;
  class StampedWebSocket extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        R.messages++;
        // Kept as is (parsed when a token shows up, or at the end): nothing slow in here.
        if (typeof event.data === "string" && event.data.startsWith('{"type":"events"')) R.unparsed.push([wall(), event.data]);
      });
    }
  }
  window.WebSocket = StampedWebSocket;

  const nativeFrame = window.requestAnimationFrame.bind(window);
  let pending = []; // inserted outside a frame, waiting for the next one
  let inFrame = false;
  const seen = new WeakSet();
  const TOKEN = /^t(\d+) $/;
  const take = (el, now, batch) => {
    if (seen.has(el)) return;
    seen.add(el);
    const m = TOKEN.exec(el.textContent);
    if (!m) {
      R.other++;
      return;
    }
    const i = Number(m[1]);
    const rec = { i, msg: null, ins: now, raf: inFrame ? now : null };
    R.tokens.push(rec);
    if (inFrame) {
      batch.push(rec);
      return;
    }
    if (!pending.length) nativeFrame(frame);
    pending.push(rec);
  };
  const handle = (records) => {
    const now = wall();
    const batch = [];
    for (const r of records) {
      for (const node of r.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.matches('[data-testid="token"]')) take(node, now, batch);
        else for (const el of node.querySelectorAll('[data-testid="token"]')) take(el, now, batch);
      }
    }
    if (batch.length) R.frames.push([now, batch.length]);
  };
  const observer = new MutationObserver(handle);
  // Inserted outside a frame: shown by the next frame, stamped at the start of its callbacks.
  const frame = () => {
    const t = wall();
    const batch = pending;
    pending = [];
    for (const rec of batch) rec.raf = t;
    if (batch.length) R.frames.push([t, batch.length]);
  };
  // Inserted by a frame callback: shown by that frame. The page's callbacks are wrapped so that
  // their insertions are taken (takeRecords) and stamped before the frame's style, layout and
  // paint.
  window.requestAnimationFrame = (callback) =>
    nativeFrame((stamp) => {
      try {
        callback(stamp);
      } finally {
        const records = observer.takeRecords();
        if (records.length) {
          inFrame = true;
          try {
            handle(records);
          } finally {
            inFrame = false;
          }
        }
      }
    });
  R.attach = (element) => {
    const streams = element || document.querySelector('[data-testid="streams"]');
    if (!streams) return false;
    observer.disconnect();
    observer.observe(streams, { childList: true, subtree: true });
    R.observing = true;
    return true;
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => R.attach());
  else R.attach();
})();
"""

# What the page recorded, and x_sent_ms per token from the page's own timeline.
COLLECT = r"""
() => {
  const R = window.__relay;
  for (const [t, text] of R.unparsed) for (const m of text.matchAll(/"text":"t(\d+) "/g)) R.dispatched[Number(m[1])] = t;
  R.unparsed = [];
  for (const rec of R.tokens) rec.msg = R.dispatched[rec.i] ?? null;
  const sent = {};
  if (window.streamscope) {
    const bySent = new Map();
    const events = window.streamscope.timeline.events;
    for (const e of events) if (e.kind === "extra" && e.fields && e.fields.x_sent_ms !== undefined) bySent.set(e.raw, e.fields.x_sent_ms);
    for (const e of events) {
      const m = e.kind === "text" ? /^t(\d+) $/.exec(e.text) : null;
      if (m) sent[m[1]] = bySent.get(e.raw) ?? null;
    }
  } else Object.assign(sent, R.floorSent || {});
  return {
    tokens: R.tokens, other: R.other, frames: R.frames, messages: R.messages, sent,
    drift: R.calibrate() - R.offset,
    dom: [...document.querySelectorAll('[data-testid="token"]')].map((e) => e.textContent),
  };
}
"""

# The floor: a minimal page on the same origin starts the same kind of run and shows it.
FLOOR_SCRIPT = r"""
({ baseUrl, model }) => {
  const R = window.__relay;
  const root = document.createElement("div");
  root.setAttribute("data-testid", "streams");
  document.body.replaceChildren(root);
  // Text in blocks of about 2 KB, as the player's text areas do (.block: content-visibility).
  let block = null;
  let chars = 0;
  R.attach(root);
  R.floorSent = {};
  R.floorEnd = null;
  const ws = new WebSocket(`ws://${location.host}/ws`, "%SUBPROTOCOL%");
  ws.addEventListener("open", () =>
    ws.send(JSON.stringify({ type: "start", base_url: baseUrl, headers: {},
      body: { model, messages: [{ role: "user", content: "Count." }] } })));
  ws.addEventListener("message", (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "events") {
      const sent = new Map();
      for (const e of m.events) if (e.kind === "extra" && e.fields.x_sent_ms !== undefined) sent.set(e.raw, e.fields.x_sent_ms);
      for (const e of m.events) {
        if (e.kind !== "text") continue;
        const span = document.createElement("span");
        span.setAttribute("data-testid", "token");
        span.textContent = e.text;
        if (!block || chars + e.text.length > 2048) {
          block = document.createElement("div");
          block.className = "block";
          root.appendChild(block);
          chars = 0;
        }
        block.appendChild(span);
        chars += e.text.length;
        const k = /^t(\d+) $/.exec(e.text);
        if (k) R.floorSent[k[1]] = sent.get(e.raw) ?? null;
      }
    } else if (m.type === "end" || m.type === "error") {
      R.floorEnd = m.reason || m.code || "error";
    }
  });
}
"""


# ------------------------------------------------------------------------------ helpers
def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.999999) - 1))]


def stats(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": pct(values, 0.50),
        "p95": pct(values, 0.95),
        "p99": pct(values, 0.99),
        "max": max(values) if values else float("nan"),
        "mean": sum(values) / len(values) if values else float("nan"),
    }


def ms(value: float) -> str:
    return f"{value:.1f} ms"


def quad(s: dict[str, float]) -> str:
    return " / ".join(ms(s[k]) for k in ("p50", "p95", "p99", "max"))


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "-"


def watch(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    return errors


def machine_info(browser_version: str) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f", RAM {int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    versions = []
    for name in ("playwright", "simple-websocket", "flask-sock", "httpx"):
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} ?")
    return (
        f"machine: {cpu}, cpu_count={os.cpu_count()}{mem}, {platform.system()} "
        f"{platform.release()}; "
        f"Python {platform.python_version()}, {', '.join(versions)}, Chromium {browser_version} "
        f"(headless, {CHROMIUM}, viewport {VIEWPORT['width']}x{VIEWPORT['height']})"
    )


class CpuMeter:
    """Machine CPU time (all cores, /proc/stat) and this bench's process tree (this process,
    the server, Chromium and Playwright's driver), between start() and stop()."""

    TICK = os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _machine() -> tuple[float, float]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields[:8]) / CpuMeter.TICK, (sum(fields[:8]) - idle) / CpuMeter.TICK

    @staticmethod
    def _label(pid: int) -> str:
        try:
            args = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
        except OSError:
            return "?"
        text = " ".join(a.decode(errors="replace") for a in args if a)
        if pid == os.getpid():
            return "bench (fake upstream, ws client, Playwright client)"
        if "app.cli" in text and "serve" in text:
            return "streamscope server"
        if "chromium" in text or "chrome" in text:
            kind = next(
                (a.split("=", 1)[1] for a in text.split() if a.startswith("--type=")), "browser"
            )
            if kind == "utility" and "network" in text.lower():
                kind = "network"
            return f"chromium {kind}"
        if "playwright" in text or text.endswith("node"):
            return "playwright driver"
        return text[:40]

    @staticmethod
    def _tree() -> dict[int, float]:
        children: dict[int, list[int]] = {}
        times: dict[int, float] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            rest = stat.rsplit(")", 1)[1].split()
            pid, ppid = int(entry.name), int(rest[1])
            children.setdefault(ppid, []).append(pid)
            times[pid] = (int(rest[11]) + int(rest[12])) / CpuMeter.TICK
        tree: dict[int, float] = {}
        todo = [os.getpid()]
        while todo:
            pid = todo.pop()
            tree[pid] = times.get(pid, 0.0)
            todo += children.get(pid, [])
        return tree

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.m0 = self._machine()
        self.own0 = self._tree()

    def stop(self) -> dict[str, Any]:
        wall = time.monotonic() - self.t0
        m1 = self._machine()
        tree = self._tree()  # processes that exited meanwhile are not counted: none exit here
        by_label: dict[str, float] = {}
        for pid, seconds in tree.items():
            label = self._label(pid)
            by_label[label] = by_label.get(label, 0.0) + seconds - self.own0.get(pid, 0.0)
        own = sum(by_label.values())
        busy = m1[1] - self.m0[1]
        cores = os.cpu_count() or 1
        return {
            "wall_s": wall,
            "machine_busy_pct": 100 * busy / (wall * cores),
            "bench_cpu_pct": 100 * own / (wall * cores),
            "other_cpu_pct": max(0.0, 100 * (busy - own) / (wall * cores)),
            # percent of one core, by process kind
            "by_process_pct_of_core": {
                k: round(100 * v / wall, 1)
                for k, v in sorted(by_label.items(), key=lambda kv: -kv[1])
                if v > 0
            },
        }


def override_static(page, base_url: str, directory: Path) -> None:
    """Serve /static/<path> from ``directory``/<path> where that file exists (an experiment)."""
    prefix = base_url + "/static/"
    types = {".js": "text/javascript", ".css": "text/css"}

    def handle(route) -> None:  # type: ignore[no-untyped-def]
        relative = route.request.url[len(prefix) :].split("?", 1)[0]
        local = directory / relative
        if local.is_file():
            kind = types.get(local.suffix, "application/octet-stream")
            route.fulfill(status=200, content_type=kind, body=local.read_bytes())
        else:
            route.continue_()

    page.route(prefix + "**", handle)


# ------------------------------------------------------------------------------ trace
TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "blink",
]


def summarize_trace(path: Path) -> list[tuple[str, float, int]]:
    """The page renderer's main thread from a Chromium trace, as (what, total ms, count): the
    busy time (top-level tasks), the rendering phases, frames, JS by listener and paint by
    element. Nested events overlap (a task contains its JS, layout and paint)."""
    data = json.loads(path.read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e["args"].get("name") == "CrRendererMain"
    }
    phases = {
        "RunTask": "main thread busy (tasks)",
        "WebFrameWidgetImpl::UpdateLifecycle": "frames (lifecycle updates)",
        "FunctionCall": "JS (all)",
        "UpdateLayoutTree": "style",
        "Layout": "layout",
        "Blink.ForcedStyleAndLayout.UpdateTime": "forced style+layout",
        "PrePaint": "pre-paint",
        "Paint": "paint",
        "Commit": "commit",
        "HitTest": "hit tests",
        "MinorGC": "GC (minor)",
        "MajorGC": "GC (major)",
    }
    totals: dict[str, list[float]] = {}

    def add(key: str, dur: float) -> None:
        entry = totals.setdefault(key, [0.0, 0])
        entry[0] += dur / 1000
        entry[1] += 1

    for e in events:
        if (e.get("pid"), e.get("tid")) not in main or e.get("ph") != "X":
            continue
        name, dur, args = e.get("name", ""), e.get("dur", 0), e.get("args") or {}
        if name in phases:
            add(phases[name], dur)
        if name == "FunctionCall":
            d = args.get("data", {})
            where = (
                f"{d.get('url', '').rsplit('/', 1)[-1] or '(init script)'}:{d.get('lineNumber')}"
            )
            add(f"JS {d.get('functionName') or '(anonymous)'} @ {where}", dur)
        elif name == "Paint" and args.get("data", {}).get("nodeName"):
            add(f"paint {args['data']['nodeName'][:40]}", dur)
    return sorted(((k, v[0], int(v[1])) for k, v in totals.items()), key=lambda r: -r[1])


def summarize_profile(path: Path) -> list[tuple[str, float, float]]:
    """(function @ file:line, self ms, total ms incl. callees) from a .cpuprofile."""
    profile = json.loads(path.read_text())
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    deltas = profile.get("timeDeltas", [])
    self_us: dict[int, float] = {}
    for sample, delta in zip(profile.get("samples", []), [*deltas[1:], 0], strict=False):
        self_us[sample] = self_us.get(sample, 0.0) + delta

    def key(node: dict[str, Any]) -> str:
        frame = node["callFrame"]
        url = frame.get("url", "").rsplit("/", 1)[-1]
        name = frame.get("functionName") or "(anonymous)"
        return f"{name} @ {url}:{frame.get('lineNumber', -1) + 1}" if url else name

    by_self: dict[str, float] = {}
    by_total: dict[str, float] = {}
    for node_id, us in self_us.items():
        k = key(nodes[node_id])
        by_self[k] = by_self.get(k, 0.0) + us
        seen: set[str] = set()
        current: int | None = node_id
        while current is not None:
            k2 = key(nodes[current])
            if k2 not in seen:
                by_total[k2] = by_total.get(k2, 0.0) + us
                seen.add(k2)
            current = parent.get(current)
    rows = [(k, by_self.get(k, 0.0) / 1000, by_total[k] / 1000) for k in by_total]
    return sorted(rows, key=lambda r: -r[1])


# ------------------------------------------------------------------------------ baseline
class Follower:
    """A plain websocket client following a live run by its capture id."""

    def __init__(self, server_url: str, capture_id: str) -> None:
        import simple_websocket

        self.url = server_url.replace("http://", "ws://", 1) + "/ws"
        self.capture_id = capture_id
        self.ws = simple_websocket.Client.connect(
            self.url, subprotocols=[SUBPROTOCOL], headers={"Origin": ORIGIN}
        )
        self.received: list[tuple[float, str]] = []  # (time.time() in ms, message text)
        self.attached: float | None = None  # its capture message came: following from then on
        self.error: str | None = None
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, name="relay-baseline", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from simple_websocket import ConnectionClosed

        try:
            # Like the page: open at once, without waiting for hello (simple_websocket's client
            # can hold a frame that came with the handshake answer until the next one arrives).
            self.ws.send(json.dumps({"type": "open", "source": {"capture": self.capture_id}}))
            while True:
                text = self.ws.receive(60)
                now = time.time() * 1000
                if text is None:
                    raise RuntimeError("nothing for 60 s")
                self.received.append((now, text))  # parsed afterwards: nothing slow in here
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


# ------------------------------------------------------------------------------ runs
def live_page_run(args: argparse.Namespace, browser, context, server, fake) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The live page: fill the form, Run, follow with the baseline client, collect."""
    out: dict[str, Any] = {}
    page = context.new_page()
    errors = watch(page)
    if args.static_override:
        override_static(page, server.url, args.static_override)
    page.goto(server.url + "/live")
    wait_for(page, "() => window.__relay && window.__relay.observing && !!window.streamscope", 15)
    page.get_by_test_id("live-base-url").fill(fake.url)
    page.get_by_test_id("live-model").fill(f"rate:{args.rate:g}:{args.count}")
    # The player is under the form: bring the streams into view, as someone watching would.
    page.locator('[data-testid="streams"]').scroll_into_view_if_needed()
    if args.trace:
        browser.start_tracing(page=page, path=str(args.trace), categories=TRACE_CATEGORIES)
    cdp = None
    if args.profile:
        cdp = context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
    meter = CpuMeter()
    meter.start()
    follower: Follower | None = None
    try:
        page.get_by_test_id("live-run").click()
        clicked = time.time() * 1000
        href = wait_for(
            page,
            "() => document.querySelector('[data-testid=\"live-share-link\"]')?.getAttribute('href')",
            15,
            interval_ms=2,
        )
        out["capture_id"] = capture_id = href.rstrip("/").rsplit("/", 1)[-1]
        follower = Follower(server.url, capture_id)
        wait_for(page, "() => document.querySelector('[data-testid=\"stream\"]')", 15)
        page.locator('[data-testid="streams"]').scroll_into_view_if_needed()
        wait_for(
            page,
            "() => document.getElementById('player').dataset.endReason",
            args.count / args.rate + 60,
            interval_ms=250,
        )
        out["cpu"] = meter.stop()
        out["end_reason"] = page.evaluate(
            "() => document.getElementById('player').dataset.endReason"
        )
        follower.ended.wait(30)
        if args.trace:
            browser.stop_tracing()
        if cdp is not None:
            args.profile.write_text(json.dumps(cdp.send("Profiler.stop")["profile"]))
        page.wait_for_timeout(300)  # the last frame
        out["recorded"] = page.evaluate(COLLECT)
        out["status"] = page.evaluate(
            "() => document.querySelector('[data-testid=player-status]')?.textContent"
        )
        out["clicked"] = clicked
    finally:
        if follower is not None:
            follower.close()
    out["baseline"] = follower.results()
    out["baseline_attached"] = follower.attached
    out["baseline_error"] = follower.error
    out["errors"] = errors
    page.close()
    return out


def floor_page_run(args: argparse.Namespace, context, server, fake) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The same run shown by a minimal page: what the machine and browser cost alone."""
    out: dict[str, Any] = {}
    page = context.new_page()
    errors = watch(page)
    page.goto(server.url + "/bench-relay-floor")  # a 404 page: same origin, no page scripts
    wait_for(page, "() => !!window.__relay", 15)
    meter = CpuMeter()
    meter.start()
    page.evaluate(
        FLOOR_SCRIPT.replace("%SUBPROTOCOL%", SUBPROTOCOL),
        {"baseUrl": fake.url, "model": f"rate:{args.rate:g}:{args.count}"},
    )
    out["end_reason"] = wait_for(
        page, "() => window.__relay.floorEnd", args.count / args.rate + 60, interval_ms=250
    )
    out["cpu"] = meter.stop()
    page.wait_for_timeout(300)
    out["recorded"] = page.evaluate(COLLECT)
    out["errors"] = [e for e in errors if "status of 404" not in e]  # the page itself
    page.close()
    return out


# ------------------------------------------------------------------------------ analysis
def analyse_page(recorded: dict[str, Any], count: int) -> dict[str, Any]:
    sent = {int(i): s for i, s in recorded["sent"].items()}
    tokens = recorded["tokens"]
    known = [t for t in tokens if sent.get(t["i"]) is not None]
    in_order = [t["i"] for t in tokens] == list(range(count))
    dom_ok = recorded["dom"] == [f"t{i} " for i in range(count)]
    frames = recorded["frames"]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(frames)]
    return {
        "on_screen": stats([t["raf"] - sent[t["i"]] for t in known if t["raf"] is not None]),
        "dispatched": stats([t["msg"] - sent[t["i"]] for t in known if t["msg"] is not None]),
        "inserted": stats([t["ins"] - sent[t["i"]] for t in known]),
        "frame_gap": stats(gaps),
        "frames": len(frames),
        "tokens": len(tokens),
        "in_order": in_order,
        "dom_matches": dom_ok,
        "complete": in_order
        and dom_ok
        and len(known) == count
        and all(t["raf"] is not None for t in tokens),
        "other_token_elements": recorded["other"],
        "messages": recorded["messages"],
        "clock_check_ms": recorded["drift"],
        "sent": sent,
    }


def analyse_baseline(live: dict[str, Any]) -> dict[str, Any]:
    base = live["baseline"]
    attached = live["baseline_attached"]
    tokens = base["tokens"]
    order = [t[0] for t in tokens]
    first = order[0] if order else 0
    following = [
        t for t in tokens if attached is not None and t[1] is not None and t[1] >= attached
    ]
    out: dict[str, Any] = {
        "delay": stats([t[2] - t[1] for t in following]),
        "tokens": len(tokens),
        "following": len(following),
        "backlog": len(tokens) - len(following),
        "in_order": order == list(range(first, first + len(order))),
        "error": live["baseline_error"],
        "attached_ms_after_click": attached - live["clicked"] if attached else None,
        "following_set": {t[0] for t in following},
    }
    # Upstream reads in the server: t (ms since the request start, monotonic) against x_sent_ms.
    reads = base["reads"]
    pairs = [(reads[t[3]], t[1], t[2], t[0]) for t in tokens if t[3] in reads and t[1] is not None]
    if pairs:
        c = max(s - t for t, s, _, _ in pairs)  # the fastest read counts as 0 ms late
        out["read_late"] = stats([t + c - s for t, s, _, _ in pairs])
        out["read_to_client"] = stats(
            [r - (t + c) for t, s, r, i in pairs if i in out["following_set"]]
        )
    return out


def build_table(args: argparse.Namespace, result: dict[str, Any]) -> Table:
    table = Table(failure="value")
    page, base = result["page"], result["baseline"]
    s, b = page["on_screen"], base["delay"]
    client = "ws client"
    table.row(
        "relay delay p50: upstream write -> token on screen (next frame)",
        ms(s["p50"]), f"{client} {ms(b['p50'])}", ratio(s["p50"], b["p50"]),
        f"< {TARGET_P50_MS:g} ms", s["p50"] < TARGET_P50_MS,
    )  # fmt: skip
    table.row(
        "relay delay p95", ms(s["p95"]), f"{client} {ms(b['p95'])}", ratio(s["p95"], b["p95"])
    )
    table.row(
        "relay delay p99", ms(s["p99"]), f"{client} {ms(b['p99'])}", ratio(s["p99"], b["p99"]),
        f"< {TARGET_P99_MS:g} ms", s["p99"] < TARGET_P99_MS,
    )  # fmt: skip
    table.row(
        "relay delay max", ms(s["max"]), f"{client} {ms(b['max'])}", ratio(s["max"], b["max"])
    )
    problems = [] if page["in_order"] else ["out of order"]
    problems += [] if page["dom_matches"] else ["DOM differs"]
    table.row(
        "tokens matched (on screen, in order)",
        f"{page['tokens']}/{args.count}" + (f" ({', '.join(problems)})" if problems else ""),
        f"{client} {base['following']} + {base['backlog']} in its first message (left out)"
        + ("" if base["in_order"] else ", out of order"),
        "", f"all {args.count}, in order", page["complete"] and result["end_reason"] == "done",
    )  # fmt: skip
    errors = len(result["page_errors"])
    table.row(
        "page errors / end of the run",
        f"{errors} / {result['end_reason']}", "", "", "none / done",
        errors == 0 and result["end_reason"] == "done",
    )  # fmt: skip
    floor = result.get("floor")
    if floor:
        f = floor["on_screen"]
        table.row(
            "floor: minimal page, same run (p50 / p95 / p99 / max)",
            quad(f) + ("" if floor["complete"] else f" ({floor['tokens']}/{args.count} tokens)"),
            f"live page p50 {ms(s['p50'])}", f"{ratio(s['p50'], f['p50'])} (page / floor, p50)",
        )  # fmt: skip

    def pair(st: dict[str, float]) -> str:
        return f"{ms(st['p50'])} / {ms(st['p99'])}"

    table.row(
        "in the page: message dispatched (p50 / p99)",
        pair(page["dispatched"]),
        f"ws client {pair(b)}" + (f"; floor {pair(floor['dispatched'])}" if floor else ""),
    )
    table.row(
        "in the page: element inserted (p50 / p99)",
        pair(page["inserted"]),
        f"floor {pair(floor['inserted'])}" if floor else "",
    )
    g = page["frame_gap"]
    table.row(
        "in the page: frames showing tokens; gap between them (p50 / p99)",
        f"{page['frames']} frames; {pair(g)}",
        f"floor {floor['frames']} frames; {pair(floor['frame_gap'])}" if floor else "",
    )
    if "read_late" in base:
        table.row(
            "server: upstream read, late vs the fastest read (p50 / p99)", pair(base["read_late"])
        )
        table.row("server: read -> ws client received (p50 / p99)", pair(base["read_to_client"]))
    return table


# ------------------------------------------------------------------------------ main
def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    result: dict[str, Any] = {"rate": args.rate, "count": args.count}
    tmp = Path(tempfile.mkdtemp(prefix="bench-relay-"))
    fake = FakeUpstream().start()
    server = None
    try:
        server = LiveServer(tmp / "data").start()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            result["browser"] = browser.version
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(INIT_SCRIPT)
            live = live_page_run(args, browser, context, server, fake)
            floor = None if args.no_floor else floor_page_run(args, context, server, fake)
            context.close()
            browser.close()
    finally:
        if server is not None:
            server.stop()
        fake.stop()
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result["page"] = analyse_page(live["recorded"], args.count)
    result["baseline"] = analyse_baseline(live)
    result["end_reason"] = live["end_reason"]
    result["status"] = live["status"]
    result["page_errors"] = live["errors"]
    result["cpu"] = live["cpu"]
    if floor is not None:
        result["floor"] = analyse_page(floor["recorded"], args.count)
        result["floor"]["end_reason"] = floor["end_reason"]
        result["floor"]["cpu"] = floor["cpu"]
        result["floor"]["errors"] = floor["errors"]
    return result


def cpu_line(label: str, cpu: dict[str, Any]) -> str:
    kinds = ", ".join(f"{k} {v:.0f}" for k, v in cpu["by_process_pct_of_core"].items())
    return (
        f"CPU, {label} ({cpu['wall_s']:.1f} s, {os.cpu_count()} cores): machine "
        f"{cpu['machine_busy_pct']:.0f}% busy = this bench {cpu['bench_cpu_pct']:.0f}% + other "
        f"processes {cpu['other_cpu_pct']:.0f}%; this bench by process, % of one core: {kinds}"
    )


def main(argv: list[str] | None = None) -> int:
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
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM}", file=sys.stderr)
        return 2
    given = sys.argv[1:] if argv is None else argv
    command = "python " + " ".join(shlex.quote(a) for a in ["bench/bench_relay.py", *given])
    load_start = os.getloadavg()
    started = time.monotonic()
    result = run(args)
    elapsed = time.monotonic() - started
    table = build_table(args, result)
    page, base = result["page"], result["baseline"]
    print(f"command: {command}  (in {ROOT}, took {elapsed:.0f} s)")
    print(machine_info(result.get("browser", "?")))
    print(
        f"load average at start {'/'.join(f'{x:.2f}' for x in load_start)}, at end "
        f"{'/'.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        f"run: model rate:{args.rate:g}:{args.count} ({args.count / args.rate:.0f} s of tokens); "
        f"{page['messages']} websocket messages in the page; ws client attached "
        f"{base['attached_ms_after_click'] or float('nan'):.0f} ms after Run; "
        f"page clock check {page['clock_check_ms']:+.2f} ms"
        + (f"; static override {args.static_override}" if args.static_override else "")
    )
    print(cpu_line("live page run", result["cpu"]))
    if result.get("floor"):
        print(cpu_line("floor run", result["floor"]["cpu"]))
        if result["floor"]["errors"] or result["floor"]["end_reason"] != "done":
            print(
                f"floor run: end {result['floor']['end_reason']}, errors {result['floor']['errors']}"
            )
    if base["error"]:
        print(f"ws client error: {base['error']}")
    if result["page_errors"]:
        print("page errors:\n  " + "\n  ".join(result["page_errors"]))
    print()
    print(table.render())
    if args.trace:
        print(f"\nChromium trace {args.trace}, renderer main thread (nested events overlap):")
        print("| what | total | count |\n|---|---|---|")
        for name, total, n in summarize_trace(args.trace)[:24]:
            print(f"| {name} | {total:.0f} ms | {n} |")
    if args.profile:
        print(f"\nJS CPU profile {args.profile}, by total time (self + callees), top 20:")
        print("| function | total | self |\n|---|---|---|")
        rows = sorted(summarize_profile(args.profile), key=lambda r: -r[2])
        for name, self_ms, total_ms in rows[:20]:
            print(f"| {name} | {total_ms:.0f} ms | {self_ms:.0f} ms |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        for part in ("page", "floor"):
            if result.get(part):
                result[part].pop("sent", None)
        result["baseline"].pop("following_set", None)
        args.json.write_text(json.dumps(result, indent=2))
    if table.failed:
        print("\nFAILED: " + "; ".join(table.failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
