"""Browser benchmark: the player page in headless Chromium, on a real ``streamscope serve``.

One run, one server (free loopback port, temporary data dir, stopped at the end), Debian's
Chromium driven by Playwright. Prints the command, the machine, a Markdown table and how much
CPU other processes took during the run (the numbers are only meaningful on a quiet machine);
exits 1 when a target is missed.

    python bench/bench_player.py                    # all measures, about 3-4 minutes
    python bench/bench_player.py --skip-playback    # only the jumps (or --skip-jumps)
    python bench/bench_player.py --profile          # plus CDP CPU profiles: where time goes
    python bench/bench_player.py --json bench/out/bench_player.json

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

The instrumentation is injected with ``page.add_init_script`` (Playwright adds it through the
DevTools protocol, so the page's CSP, which forbids eval, does not apply) and checked at start:
a 120 ms busy task must show up as a long task. Polling uses ``page.evaluate`` (the CSP forbids
``page.wait_for_function``). Nothing under app/, static/ or templates/ is changed: the wrappers
are installed at run time on the objects ``window.streamscope`` exposes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shlex
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import gen_capture  # noqa: E402
from benchkit import Table, wait_for  # noqa: E402

from tests.chromium import ARGS, CHROMIUM  # noqa: E402
from tests.live_server import LiveServer  # noqa: E402

VIEWPORT = {"width": 1366, "height": 900}

# Injected before any page script. Everything it records lives on window.__bench.
INIT_SCRIPT = r"""
(() => {
  if (window.__bench) return;
  const B = (window.__bench = {
    longtasks: [], longtaskError: null, loadedAt: null, jump: null, keys: [],
    frame: { on: false, stamps: [], samples: [] },
  });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) B.longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch (e) {
    B.longtaskError = String(e);
  }
  const settledNow = () => {
    const s = window.streamscope;
    if (!s) return false;
    const r = s.renderer, n = s.timeline.length;
    return !r.busy && r.rendered === n && r.target === n && !document.querySelector("[data-rendering]");
  };
  const check = () => {
    const J = B.jump;
    if (!J || J.t0 === null || J.settled !== null) return;
    if (!settledNow()) return;
    J.settled = performance.now();
    requestAnimationFrame(() => { J.painted = performance.now(); });
  };
  B.check = check;
  new MutationObserver((records) => {
    const now = performance.now();
    for (const r of records) {
      const el = r.target;
      if (r.attributeName === "data-loaded" && el.dataset.loaded === "true" && B.loadedAt === null) B.loadedAt = now;
      if (r.attributeName === "data-rendering") {
        if (B.jump && B.jump.t0 !== null) {
          if (el.hasAttribute("data-rendering")) B.jump.renderingOn = now;
          else B.jump.renderingOff = now;
        }
        check();
      }
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-loaded", "data-rendering"] });
  window.addEventListener("keydown", (e) => {
    B.keys.push({ key: e.key, t: performance.now() });
    const J = B.jump;
    if (J && J.t0 === null && e.key === J.key) J.t0 = performance.now();
  }, true);
  // Bubbling listener on window: runs after the page's document listener, still in the task.
  window.addEventListener("keydown", () => check());
  // rAF loop: registered before the player's and renderer's callbacks, so it runs first in
  // each frame and sees the screen as the previous frame left it.
  const loop = (stamp) => {
    const F = B.frame;
    if (F.on) {
      F.stamps.push(stamp);
      const s = window.streamscope;
      if (s && F.sample) {
        const r = s.renderer, tl = s.timeline, p = s.player;
        const clock = p.time();
        const next = r.rendered < tl.length ? tl.times[r.rendered] : Infinity;
        F.samples.push(clock > next ? clock - next : 0);
      }
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  B.busy = (ms) => setTimeout(() => { const end = performance.now() + ms; while (performance.now() < end); }, 0);
})();
"""

# Run-time wrappers (page.evaluate): nothing in static/ changes.
WRAP_STEP = r"""
() => {
  const r = window.streamscope.renderer;
  if (r.__benchWrapped) return;
  r.__benchWrapped = true;
  const B = window.__bench;
  B.slices = [];
  const apply = r._apply, step = r._step;
  r._apply = function (cursor) {
    const from = this.rendered, t = performance.now();
    apply.call(this, cursor);
    if (B.sliceOn) B.slices.push({ kind: "apply", start: t, ms: performance.now() - t, events: this.rendered - from });
  };
  r._step = function () {
    const t = performance.now();
    step.call(this);
    if (B.sliceOn) B.slices.push({ kind: "step", start: t, ms: performance.now() - t });
  };
}
"""

WRAP_PLAY = r"""
() => {
  const { renderer: r, timeline: tl, player: p } = window.streamscope;
  const B = window.__bench;
  let last = -1;
  for (let g = tl.length - 1; g >= 0; g--) {
    if (tl.events[g].kind === "text" || tl.events[g].kind === "logprobs") { last = g; break; }
  }
  B.play = { lastTokenG: last, lastTokenTime: tl.times[last], duration: tl.duration, length: tl.length,
             appliedAt: null, lateness: [], applied: [], calls: 0 };
  const moveTo = r.moveTo;
  r.moveTo = function (cursor, previous) {
    const from = this.rendered;
    moveTo.call(this, cursor, previous);
    const P = B.play;
    if (p.state === "playing" && this.rendered > from) {
      P.calls++;
      P.lateness.push(p.time() - tl.times[from]);
      P.applied.push(performance.now(), tl.times[from]);
      if (P.appliedAt === null && this.rendered > P.lastTokenG) P.appliedAt = performance.now();
    }
  };
  return B.play;
}
"""


# ------------------------------------------------------------------------------ helpers
def upload(server: LiveServer, data: bytes, title: str) -> dict[str, Any]:
    """Upload a capture (gzipped) through the REST API; the answer."""
    body = gzip.compress(data, compresslevel=1)
    request = urllib.request.Request(
        f"{server.url}/api/captures?title={urllib.request.quote(title)}",
        data=body,
        method="POST",
        headers={"Content-Type": "text/plain"},
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read())


def fmt_ms(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def wait_idle(page, quiet_ms: float = 500, timeout: float = 20) -> bool:
    """Until no long task has ended in the last ``quiet_ms`` and no renderer work is pending
    (on a loaded machine that may not happen: go on after ``timeout`` seconds)."""
    expression = f"""() => {{
        const B = window.__bench, now = performance.now();
        const ends = B.longtasks.map((e) => e.start + e.duration);
        const last = ends.length ? Math.max(...ends) : 0;
        const r = window.streamscope && window.streamscope.renderer;
        return now - last > {quiet_ms} && r && !r.busy;
    }}"""
    try:
        wait_for(page, expression, timeout, interval_ms=100)
    except TimeoutError:
        print(f"note: the page did not go idle for {quiet_ms:.0f} ms within {timeout:.0f} s")
        return False
    return True


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
    try:
        pw = metadata.version("playwright")
    except metadata.PackageNotFoundError:
        pw = "?"
    return (
        f"machine: {cpu}, cpu_count={os.cpu_count()}{mem}, {platform.system()} "
        f"{platform.release()}, loadavg={'/'.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"Python {platform.python_version()}, Playwright {pw}, Chromium {browser_version} "
        f"(headless, {CHROMIUM}, viewport {VIEWPORT['width']}x{VIEWPORT['height']})"
    )


# ------------------------------------------------------------------------------ measures
def open_capture(context, url: str, timeout: float = 180) -> tuple[Any, Any, float]:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    page.errors = errors
    started = time.perf_counter()
    page.goto(url)
    try:
        wait_for(
            page,
            "() => window.__bench.loadedAt !== null"
            " || document.getElementById('player')?.dataset.loaded === 'error'",
            timeout,
            interval_ms=50,
        )
        loaded = page.evaluate("() => document.getElementById('player').dataset.loaded")
    except TimeoutError:
        loaded = "timeout"
    if loaded != "true":
        status = page.evaluate(
            "() => document.querySelector('[data-testid=player-status]')?.textContent"
        )
        raise RuntimeError(f"{url} did not load ({loaded}): status {status!r}, errors {errors}")
    wall = (time.perf_counter() - started) * 1000
    cdp = context.new_cdp_session(page)
    return page, cdp, wall


def check_instrumentation(page) -> str:
    info = page.evaluate(
        "() => ({err: window.__bench.longtaskError, types: PerformanceObserver.supportedEntryTypes})"
    )
    if info["err"] or "longtask" not in info["types"]:
        raise RuntimeError(f"longtask entries are not available: {info}")
    before = page.evaluate("() => window.__bench.longtasks.length")
    page.evaluate("() => window.__bench.busy(120)")
    found = wait_for(
        page,
        f"() => window.__bench.longtasks.slice({before}).find((e) => e.duration >= 100) || null",
        5,
    )
    return f"init script active under the CSP; a 120 ms busy task showed as a {found['duration']:.0f} ms long task"


def jump_once(page, cdp, instrument: bool = False) -> dict[str, Any]:
    cdp.send("HeapProfiler.collectGarbage")
    page.wait_for_timeout(200)
    wait_idle(page, quiet_ms=400)
    if instrument:
        page.evaluate(WRAP_STEP)
        page.evaluate("() => { window.__bench.slices = []; window.__bench.sliceOn = true; }")
    page.evaluate(
        "() => { const B = window.__bench; B.jump = {key: 'End', t0: null, settled: null, painted: null,"
        " renderingOn: null, renderingOff: null}; B.frame.stamps = []; B.frame.sample = false; B.frame.on = true; }"
    )
    page.keyboard.press("End")
    wait_for(page, "() => window.__bench.jump.painted !== null", 60, interval_ms=25)
    page.wait_for_timeout(250)  # let long-task entries arrive
    result = page.evaluate(
        """() => {
        const B = window.__bench, J = B.jump, s = window.streamscope;
        B.frame.on = false; B.sliceOn = false;
        const tasks = B.longtasks.filter((e) => e.start + e.duration >= J.t0 - 1 && e.start <= J.painted);
        const stamps = B.frame.stamps.filter((t) => t >= J.t0 && t <= J.painted + 1);
        const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
        return {
          t0: J.t0, settled: J.settled - J.t0, painted: J.painted - J.t0,
          sliced: J.renderingOn !== null,
          longtasks: tasks.map((e) => e.duration),
          frames: stamps.length, maxGap: gaps.length ? Math.max(...gaps) : 0,
          tokens: document.querySelectorAll('[data-testid="token"]').length,
          rendered: s.renderer.rendered, length: s.timeline.length,
          slices: B.slices || [],
        };
    }"""
    )
    # Back to the start for the next run.
    page.keyboard.press("Home")
    wait_for(
        page,
        "() => window.streamscope.renderer.rendered === 0 && !window.streamscope.renderer.busy",
        30,
    )
    return result


def summarize_profile(profile: dict, top: int) -> dict[str, Any]:
    """A CDP CPU profile as self and inclusive (total) ms per function, largest first.
    Style, layout, paint and GC outside JS show as "(program)" / "(garbage collector)"."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}

    def key(node: dict) -> str:
        frame = node["callFrame"]
        url = frame["url"].rsplit("/static/", 1)[-1]
        name = frame["functionName"] or "(anonymous)"
        return f"{name} {url}:{frame['lineNumber'] + 1}" if url else name

    self_us: dict[str, float] = {}
    total_us: dict[str, float] = {}
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        k = key(nodes[node_id])
        self_us[k] = self_us.get(k, 0.0) + delta
        seen: set[str] = set()
        walk: int | None = node_id
        while walk is not None:
            k = key(nodes[walk])
            if k not in seen and k != "(root)":
                total_us[k] = total_us.get(k, 0.0) + delta
                seen.add(k)
            walk = parent.get(walk)
    busy = sum(v for k, v in self_us.items() if k != "(idle)") / 1000

    def rows(d: dict[str, float]) -> list[tuple[float, str]]:
        return [(v / 1000, k) for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:top]]

    return {"busy_ms": busy, "self": rows(self_us), "total": rows(total_us)}


def start_profiler(cdp) -> None:
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    cdp.send("Profiler.start")


def stop_profiler(cdp) -> dict:
    profile = cdp.send("Profiler.stop")["profile"]
    cdp.send("Profiler.disable")
    return profile


def profile_jump(page, cdp, top: int = 25) -> dict[str, Any]:
    """One End jump under the CDP sampling profiler (not counted in the measures)."""
    cdp.send("HeapProfiler.collectGarbage")
    wait_idle(page, quiet_ms=400)
    start_profiler(cdp)
    page.evaluate(
        "() => { const B = window.__bench; B.jump = {key: 'End', t0: null, settled: null,"
        " painted: null, renderingOn: null, renderingOff: null}; }"
    )
    page.keyboard.press("End")
    wait_for(page, "() => window.__bench.jump.painted !== null", 60, interval_ms=25)
    profile = stop_profiler(cdp)
    painted = page.evaluate("() => window.__bench.jump.painted - window.__bench.jump.t0")
    page.keyboard.press("Home")
    wait_for(page, "() => window.streamscope.renderer.rendered === 0", 30)
    out = summarize_profile(profile, top)
    out["title"] = f"one End jump, {fmt_ms(painted)} under the profiler"
    return out


def profile_playback(page, cdp, seconds: float = 10, top: int = 25) -> dict[str, Any]:
    """``seconds`` of 1x playback from the start under the profiler (after the measured run)."""
    page.keyboard.press("Home")
    cdp.send("HeapProfiler.collectGarbage")
    wait_idle(page, quiet_ms=400)
    start_profiler(cdp)
    page.keyboard.press(" ")
    page.wait_for_timeout(int(seconds * 1000))
    page.keyboard.press(" ")
    profile = stop_profiler(cdp)
    out = summarize_profile(profile, top)
    out["title"] = f"{seconds:.0f} s of 1x playback"
    return out


class CpuMeter:
    """Machine-wide CPU time (/proc/stat) against this bench's own processes (itself, the server,
    the Playwright driver and every Chromium process, read from /proc/<pid>/stat, reaped
    children included), to say how much other processes competed for the cores."""

    def __init__(self) -> None:
        self.start_stat = self._stat()
        self.start_mine = self._mine()
        self.end: tuple[float, tuple[float, float, float], float] | None = None

    @staticmethod
    def _stat() -> tuple[float, float, float]:
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        except OSError:
            return (0.0, 0.0, 0.0)
        tick = os.sysconf("SC_CLK_TCK")
        user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
        busy = user + nice + system + irq + softirq
        return (busy / tick, (idle + iowait) / tick, steal / tick)

    @staticmethod
    def _mine() -> float:
        """CPU seconds of this process and all its live descendants (with their reaped ones)."""
        import resource

        tick = os.sysconf("SC_CLK_TCK")
        children: dict[int, list[int]] = {}
        cpu: dict[int, float] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                rest = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            pid = int(entry.name)
            children.setdefault(int(rest[1]), []).append(pid)
            cpu[pid] = sum(int(x) for x in rest[11:15]) / tick  # utime stime cutime cstime
        total = 0.0
        stack = list(children.get(os.getpid(), []))
        while stack:
            pid = stack.pop()
            total += cpu.get(pid, 0.0)
            stack.extend(children.get(pid, []))
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return total + me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    @classmethod
    def busy_share(cls, seconds: float) -> float:
        """Share of all cores busy (any process) over the next ``seconds``."""
        busy0, idle0, _ = cls._stat()
        time.sleep(seconds)
        busy1, idle1, _ = cls._stat()
        total = (busy1 - busy0) + (idle1 - idle0)
        return (busy1 - busy0) / total if total > 0 else 0.0

    def stop(self, wall: float) -> None:
        """Call while the server and Chromium still run (their CPU is read from /proc)."""
        self.end = (self._mine(), self._stat(), wall)

    def others(self) -> tuple[float, float, float, float]:
        """(mine, others, steal, wall) over the run, in CPU-seconds and seconds."""
        assert self.end is not None
        mine1, (busy1, _, steal1), wall = self.end
        busy0, _, steal0 = self.start_stat
        mine = mine1 - self.start_mine
        return mine, max(0.0, (busy1 - busy0) - mine), steal1 - steal0, wall

    def others_share(self) -> float:
        _, others, _, wall = self.others()
        return others / wall / (os.cpu_count() or 1)

    def report(self) -> str:
        if self.end is None or not self.end[1][0]:
            return "cpu: not measured"
        mine, others, steal, wall = self.others()
        cores = os.cpu_count() or 1
        return (
            f"cpu during the run: this bench's processes (Python, server, Chromium) {mine:.0f} "
            f"CPU-s; other processes {others:.0f} CPU-s ({others / wall / cores:.0%} of "
            f"{cores} cores over {wall:.0f} s); hypervisor steal {steal:.0f} CPU-s; "
            f"loadavg now {'/'.join(f'{x:.2f}' for x in os.getloadavg())}"
        )


def measure_jumps(
    context, url: str, tokens: int, repeat: int, profile: bool = False
) -> dict[str, Any]:
    page, cdp, wall = open_capture(context, url)
    out: dict[str, Any] = {"tokens": tokens, "load_wall_ms": wall}
    out["load_ms"] = page.evaluate("() => window.__bench.loadedAt")
    out["events"] = page.evaluate("() => window.streamscope.timeline.length")
    out["selftest"] = check_instrumentation(page)
    runs = [jump_once(page, cdp) for _ in range(repeat)]
    out["runs"] = runs
    out["instrumented"] = jump_once(page, cdp, instrument=True)
    if profile:
        out["profile"] = profile_jump(page, cdp)
    out["errors"] = list(page.errors)
    page.close()
    return out


TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8",
    "disabled-by-default-v8.gc",
    "blink",
]


def long_tasks_in_trace(path: Path, over_ms: float = 50.0) -> list[str]:
    """Each main-thread task over ``over_ms`` in a Chromium trace, with the events inside it
    that took the most time (GC, style, layout, paint, script...)."""
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"
    }
    spans = [e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) in main]
    tasks = [e for e in spans if e["name"] == "RunTask" and e.get("dur", 0) >= over_ms * 1000]
    lines = []
    for task in tasks:
        start, end = task["ts"], task["ts"] + task["dur"]
        inside: dict[str, float] = {}
        for e in spans:
            if e is not task and start <= e["ts"] < end and e.get("dur"):
                inside[e["name"]] = inside.get(e["name"], 0.0) + e["dur"] / 1000
        top = sorted(inside.items(), key=lambda kv: -kv[1])[:6]
        lines.append(
            f"{task['dur'] / 1000:.0f} ms task: " + ", ".join(f"{n} {ms:.1f} ms" for n, ms in top)
        )
    return lines


def measure_playback(
    context, url: str, expected_ms: float, profile: bool = False, trace: Path | None = None
) -> dict[str, Any]:
    page, cdp, _wall = open_capture(context, url)
    out: dict[str, Any] = {"load_ms": page.evaluate("() => window.__bench.loadedAt")}
    cdp.send("HeapProfiler.collectGarbage")
    wait_idle(page, quiet_ms=500)
    out["info"] = page.evaluate(WRAP_PLAY)
    page.evaluate(
        "() => { const B = window.__bench; B.keys = []; B.frame.stamps = []; B.frame.samples = [];"
        " B.frame.sample = true; B.frame.on = true; }"
    )
    if trace is not None:
        context.browser.start_tracing(page=page, path=str(trace), categories=TRACE_CATEGORIES)
    page.keyboard.press(" ")
    wait_for(page, "() => window.streamscope.player.state === 'playing'", 5)
    # Poll rarely: the page should have the CPU to itself.
    wait_for(
        page,
        "() => window.streamscope.player.state === 'ended'",
        expected_ms / 1000 + 30,
        interval_ms=1000,
    )
    page.wait_for_timeout(300)
    if trace is not None:
        context.browser.stop_tracing()
        out["trace_long_tasks"] = long_tasks_in_trace(trace)
    result = page.evaluate(
        """() => {
        const B = window.__bench, P = B.play;
        B.frame.on = false;
        const play = B.keys.find((k) => k.key === " ").t;
        const tasks = B.longtasks.filter((e) => e.start + e.duration >= play && e.start <= P.appliedAt + 50);
        const stamps = B.frame.stamps.filter((t) => t >= play && t <= P.appliedAt + 1);
        const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
        return { play, appliedAt: P.appliedAt, lastTokenTime: P.lastTokenTime, duration: P.duration,
                 lateness: P.lateness, applied: P.applied, calls: P.calls, longtasks: tasks.map((e) => e.duration),
                 longtaskAt: tasks.map((e) => Math.round(e.start - play)),
                 gaps, stale: B.frame.samples,
                 tokens: document.querySelectorAll('[data-testid="token"]').length,
                 rendered: window.streamscope.renderer.rendered, length: window.streamscope.timeline.length };
    }"""
    )
    out.update(result)
    if profile:
        out["profile"] = profile_playback(page, cdp)
    out["errors"] = list(page.errors)
    page.close()
    return out


# ------------------------------------------------------------------------------ report
def jump_rows(table: Table, big: dict, small: dict) -> None:
    for m in (small, big):
        k = f"{m['tokens'] // 1000}k"
        table.row(
            f"load: navigation to data-loaded, {k} tokens ({m['events']:,} events)",
            f"{fmt_ms(m['load_ms'])} (Python wall {fmt_ms(m['load_wall_ms'])})",
        )
    med = {}
    for m in (small, big):
        k = f"{m['tokens'] // 1000}k"
        painted = [r["painted"] for r in m["runs"]]
        settled = [r["settled"] for r in m["runs"]]
        med[k] = statistics.median(painted)
        m["median_painted"] = med[k]
        runs = ", ".join(fmt_ms(v) for v in painted)
        table.row(
            f"End on {k} tokens: keydown to settled (renderer done)",
            f"{fmt_ms(statistics.median(settled))} (runs {', '.join(fmt_ms(v) for v in settled)})",
        )
        table.row(
            f"End on {k} tokens: keydown to first frame after settled",
            f"{fmt_ms(med[k])} (runs {runs})",
            ok=None,
        )
        frames = [r["frames"] for r in m["runs"]]
        gaps = [r["maxGap"] for r in m["runs"]]
        table.row(
            f"  frames during the {k} jump; longest frame",
            f"{statistics.median(frames):.0f} frames; {fmt_ms(max(gaps))}",
        )
        ok = all(r["tokens"] == m["tokens"] and r["rendered"] == r["length"] for r in m["runs"])
        counts = sorted({r["tokens"] for r in m["runs"]})
        table.row(
            f"  token elements after the {k} jump",
            f"{', '.join(f'{c:,}' for c in counts)}",
            f"{m['tokens']:,} tokens",
            "",
            "== tokens, rendered == length",
            ok,
        )
    ratio = med[f"{big['tokens'] // 1000}k"] / med[f"{small['tokens'] // 1000}k"]
    scale = big["tokens"] / small["tokens"]
    kb, ks = f"{big['tokens'] // 1000}k", f"{small['tokens'] // 1000}k"
    table.row(
        f"End on {kb} vs {ks}: time ratio (linear)",
        fmt_ms(med[kb]),
        f"{ks} {fmt_ms(med[ks])}",
        f"{ratio:.2f}x",
        f"<= {scale:.0f}x",
        ratio <= scale,
    )
    table.row(f"End on {kb}: absolute", fmt_ms(med[kb]), "", "", "< 2 s", med[kb] < 2000)
    for m in (small, big):
        k = f"{m['tokens'] // 1000}k"
        tasks = [d for r in m["runs"] for d in r["longtasks"]]
        worst = max(tasks, default=0.0)
        table.row(
            f"End on {k}: longest long task (all runs)",
            f"{fmt_ms(worst)} ({len(tasks)} long tasks over {len(m['runs'])} runs)"
            if tasks
            else "none over 50 ms",
            "",
            "",
            "<= 200 ms",
            worst <= 200,
        )
    for m in (small, big):
        k = f"{m['tokens'] // 1000}k"
        inst = m["instrumented"]
        applies = [s for s in inst["slices"] if s["kind"] == "apply" and s["events"] > 0]
        js = sum(s["ms"] for s in applies)
        per = [s["ms"] for s in applies]
        if per:
            table.row(
                f"  where the {k} jump goes (instrumented run, {fmt_ms(inst['painted'])})",
                f"JS applying events {fmt_ms(js)} in {len(per)} slices "
                f"(median {statistics.median(per):.0f} ms, max {max(per):.0f} ms per slice); "
                f"everything else (style, layout, paint, GC, frame waits) "
                f"{fmt_ms(inst['painted'] - js)}",
            )


def playback_rows(table: Table, m: dict, rate: float, tokens: int) -> None:
    expected = m["play"] + m["lastTokenTime"]
    drift = m["appliedAt"] - expected
    minutes = m["lastTokenTime"] / 60000
    per_min = drift / minutes
    table.row(
        f"play {tokens:,} tokens at {rate:.0f}/s, 1x: last token applied vs due",
        f"{drift:+.1f} ms after {m['lastTokenTime'] / 1000:.1f} s",
    )
    table.row(
        "  drift per minute played",
        f"{per_min:+.1f} ms/min",
        "",
        "",
        "< 50 ms/min",
        abs(per_min) < 50,
    )
    # Drift as a slope, robust to stalls: how late each frame's earliest new event is on the
    # wall clock (keydown of Space + its t), median over the first vs the last 10 s.
    pairs = m["applied"]
    late = [
        (pairs[i] - m["play"], pairs[i] - m["play"] - pairs[i + 1]) for i in range(0, len(pairs), 2)
    ]
    span = late[-1][0] - late[0][0] if late else 0
    if span > 30000:
        first = statistics.median(v for w, v in late if w - late[0][0] <= 10000)
        last = statistics.median(v for w, v in late if late[-1][0] - w <= 10000)
        slope = (last - first) / ((span - 10000) / 60000)
        table.row(
            "  lateness trend: median wall-clock lateness, first vs last 10 s",
            f"{first:.1f} ms -> {last:.1f} ms ({slope:+.1f} ms/min)",
        )
    tasks = m["longtasks"]
    table.row(
        "  long tasks during playback",
        f"{len(tasks)}, longest {fmt_ms(max(tasks))} (at "
        + ", ".join(f"{t / 1000:.1f} s" for t in m.get("longtaskAt", []))
        + " after Play)"
        if tasks
        else "none over 50 ms",
        "",
        "",
        "none > 50 ms",
        not any(d > 50 for d in tasks),
    )
    late = m["lateness"]
    table.row(
        "  per-frame lag: earliest newly applied event, clock minus its time",
        f"max {max(late):.1f} ms, p99 {pct(late, 0.99):.1f} ms, median {pct(late, 0.5):.1f} ms "
        f"({m['calls']:,} frames that applied events)",
    )
    stale = m["stale"]
    table.row(
        "  screen staleness at frame start (oldest due event not yet shown)",
        f"max {max(stale, default=0):.1f} ms, p99 {pct(stale, 0.99):.1f} ms "
        f"({len(stale):,} frames sampled)",
    )
    gaps = m["gaps"]
    table.row(
        "  frame intervals during playback",
        f"median {pct(gaps, 0.5):.1f} ms, p99 {pct(gaps, 0.99):.1f} ms, max {max(gaps, default=0):.1f} ms; "
        f"{sum(1 for g in gaps if g > 50)} over 50 ms",
    )
    table.row(
        "  token elements at the end",
        f"{m['tokens']:,}",
        f"{tokens:,} tokens",
        "",
        "== tokens",
        m["tokens"] == tokens and m["rendered"] == m["length"],
    )


# ------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
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
    args = parser.parse_args(argv)

    if args.wait_quiet > 0:
        deadline = time.monotonic() + args.wait_quiet
        while (share := CpuMeter.busy_share(3.0)) > 0.2 and time.monotonic() < deadline:
            print(
                f"machine busy ({share:.0%} of the cores): waiting for it to calm down", flush=True
            )
    started = time.perf_counter()
    cpu = CpuMeter()
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    cmd = "python " + " ".join(
        shlex.quote(a) for a in [os.path.relpath(__file__, ROOT), *sys.argv[1:]]
    )
    tmp = Path(tempfile.mkdtemp(prefix="streamscope-bench-player-"))
    results: dict[str, Any] = {}
    table = Table()
    try:
        # ---- captures (generated fresh: deterministic, a few seconds)
        captures: dict[str, bytes] = {}
        if not args.skip_jumps:
            for n in (args.small, args.big):
                path = tmp / f"capture-{n}.sse"
                gen_capture.write_capture(path, n)
                captures[f"sse-{n}"] = path.read_bytes()
        if not args.skip_playback:
            path = tmp / f"timed-{args.play_tokens}.ssjsonl"
            timed = gen_capture.write_timed(path, args.play_tokens, args.rate)
            captures["timed"] = path.read_bytes()
        gen_s = time.perf_counter() - started

        with LiveServer(tmp / "data") as server, sync_playwright() as pw:
            urls = {}
            t = time.perf_counter()
            for name, data in captures.items():
                urls[name] = upload(server, data, f"bench {name}")["url"]
            upload_s = time.perf_counter() - t
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            print(f"command: `{cmd}` (cwd {os.getcwd()})")
            print(machine_info(browser.version))
            print(
                f"server: `python -m app.cli serve` on {server.url}, temp data dir; captures "
                f"generated in {gen_s:.1f} s, uploaded gzipped in {upload_s:.1f} s"
            )
            try:
                context = browser.new_context(viewport=VIEWPORT)
                context.add_init_script(INIT_SCRIPT)
                if not args.skip_jumps:
                    small = measure_jumps(
                        context, urls[f"sse-{args.small}"], args.small, args.repeat
                    )
                    big = measure_jumps(
                        context, urls[f"sse-{args.big}"], args.big, args.repeat, args.profile
                    )
                    print(f"instrumentation: {small['selftest']}")
                    results["small"], results["big"] = small, big
                if not args.skip_playback:
                    play = measure_playback(
                        context, urls["timed"], timed["last_token_t"], args.profile, args.trace
                    )
                    results["play"] = play
                context.close()
            finally:
                cpu.stop(time.perf_counter() - started)
                browser.close()

        print()
        if not args.skip_jumps:
            jump_rows(table, results["big"], results["small"])
        if not args.skip_playback:
            playback_rows(table, results["play"], args.rate, args.play_tokens)
            for line in results["play"].get("trace_long_tasks", []):
                print(f"trace: {line}")
        errors = [e for m in results.values() for e in m.get("errors", [])]
        table.row(
            "page and console errors",
            str(len(errors)),
            "",
            "",
            "0",
            not errors,
        )
        print(table.render())
        print()
        print(
            f"jump value = median of {args.repeat} runs (Home between runs, heap collected before "
            "each); times from performance.now() in the page; "
            f"total bench time {time.perf_counter() - started:.0f} s"
        )
        print(cpu.report())
        if cpu.end is not None and cpu.others_share() > 0.15:
            print(
                "WARNING: other processes competed for the CPU during this run; the times are "
                "inflated and noisy. Rerun on a quiet machine before trusting them."
            )
        if args.profile:
            for name in ("big", "play"):
                prof = results.get(name, {}).get("profile")
                if not prof:
                    continue
                print(
                    f"\nCPU profile (CDP, 200 us sampling) of {prof['title']}: main thread busy "
                    f"{fmt_ms(prof['busy_ms'])}"
                )
                print("  self ms | function                  || total ms | function")
                for (ms, fn), (tms, tfn) in zip(prof["self"], prof["total"], strict=False):
                    print(f"  {ms:7.1f} | {fn:40.40s} || {tms:7.1f} | {tfn}")
        for error in errors[:10]:
            print(f"page error: {error}")
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            slim = json.loads(json.dumps(results))
            for m in slim.values():
                for key in ("lateness", "stale", "gaps", "applied"):
                    if key in m:
                        m[key] = {
                            "max": max(m[key], default=0),
                            "p99": pct(m[key], 0.99),
                            "n": len(m[key]),
                        }
            args.json.write_text(json.dumps(slim, indent=1))
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
