"""bench_player.py's measures in the page: a jump to the end, playback at 1x, each under the
instrumentation of ``bench/js/player_init.js`` (``window.__bench``), and CPU profiles of both.
Nothing under app/, static/ or templates/ is changed: the wrappers
(``bench/js/player_wrap_*.js``) are installed at run time on the objects
``window.streamscope`` exposes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kit.browser import script, wait_for, watch_errors
from kit.devtools import (
    TRACE_CATEGORIES,
    long_tasks,
    profile_summary,
    start_profiler,
    stop_profiler,
)
from kit.table import fmt_ms

NEW_JUMP = (
    "B.jump = {key: 'End', t0: null, settled: null, painted: null,"
    " renderingOn: null, renderingOff: null};"
)
JUMP_RESULT = """() => {
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
PLAY_RESULT = """() => {
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


def wait_idle(page: Any, quiet_ms: float = 500, timeout: float = 20) -> bool:
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


def open_capture(context: Any, url: str, timeout: float = 180) -> tuple[Any, Any, float]:
    """A new page on a capture, once the player has loaded it: the page (its errors in
    ``page.errors``), a CDP session, and the navigation's wall time in ms."""
    page = context.new_page()
    page.errors = watch_errors(page)
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
        raise RuntimeError(f"{url} did not load ({loaded}): status {status!r}, {page.errors}")
    wall = (time.perf_counter() - started) * 1000
    return page, context.new_cdp_session(page), wall


def check_instrumentation(page: Any) -> str:
    """The long-task observer works under the CSP: a 120 ms busy task must show up."""
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


def jump_once(page: Any, cdp: Any, instrument: bool = False) -> dict[str, Any]:
    """Press End (heap collected, page idle first); what it took; then Home again."""
    cdp.send("HeapProfiler.collectGarbage")
    page.wait_for_timeout(200)
    wait_idle(page, quiet_ms=400)
    if instrument:
        page.evaluate(script("player_wrap_step"))
        page.evaluate("() => { window.__bench.slices = []; window.__bench.sliceOn = true; }")
    page.evaluate(
        f"() => {{ const B = window.__bench; {NEW_JUMP} B.frame.stamps = [];"
        " B.frame.sample = false; B.frame.on = true; }"
    )
    page.keyboard.press("End")
    wait_for(page, "() => window.__bench.jump.painted !== null", 60, interval_ms=25)
    page.wait_for_timeout(250)  # let long-task entries arrive
    result: dict[str, Any] = page.evaluate(JUMP_RESULT)
    page.keyboard.press("Home")  # back to the start for the next run
    wait_for(
        page,
        "() => window.streamscope.renderer.rendered === 0 && !window.streamscope.renderer.busy",
        30,
    )
    return result


def measure_jumps(
    context: Any, url: str, tokens: int, repeat: int, profile: bool = False
) -> dict[str, Any]:
    page, cdp, wall = open_capture(context, url)
    out: dict[str, Any] = {"tokens": tokens, "load_wall_ms": wall}
    out["load_ms"] = page.evaluate("() => window.__bench.loadedAt")
    out["events"] = page.evaluate("() => window.streamscope.timeline.length")
    out["selftest"] = check_instrumentation(page)
    out["runs"] = [jump_once(page, cdp) for _ in range(repeat)]
    out["instrumented"] = jump_once(page, cdp, instrument=True)
    if profile:
        out["profile"] = profile_jump(page, cdp)
    out["errors"] = list(page.errors)
    page.close()
    return out


def measure_playback(
    context: Any, url: str, expected_ms: float, profile: bool = False, trace: Path | None = None
) -> dict[str, Any]:
    """Space, then wait for the end: when the last token was applied, long tasks, frames."""
    page, cdp, _wall = open_capture(context, url)
    out: dict[str, Any] = {"load_ms": page.evaluate("() => window.__bench.loadedAt")}
    cdp.send("HeapProfiler.collectGarbage")
    wait_idle(page, quiet_ms=500)
    out["info"] = page.evaluate(script("player_wrap_play"))
    page.evaluate(
        "() => { const B = window.__bench; B.keys = []; B.frame.stamps = []; B.frame.samples = [];"
        " B.frame.sample = true; B.frame.on = true; }"
    )
    if trace is not None:
        context.browser.start_tracing(page=page, path=str(trace), categories=TRACE_CATEGORIES)
    page.keyboard.press(" ")
    wait_for(page, "() => window.streamscope.player.state === 'playing'", 5)
    wait_for(  # poll rarely: the page should have the CPU to itself
        page,
        "() => window.streamscope.player.state === 'ended'",
        expected_ms / 1000 + 30,
        interval_ms=1000,
    )
    page.wait_for_timeout(300)
    if trace is not None:
        context.browser.stop_tracing()
        out["trace_long_tasks"] = long_tasks(trace)
    out.update(page.evaluate(PLAY_RESULT))
    if profile:
        out["profile"] = profile_playback(page, cdp)
    out["errors"] = list(page.errors)
    page.close()
    return out


def profile_jump(page: Any, cdp: Any) -> dict[str, Any]:
    """One End jump under the CDP sampling profiler (not counted in the measures)."""
    cdp.send("HeapProfiler.collectGarbage")
    wait_idle(page, quiet_ms=400)
    start_profiler(cdp)
    page.evaluate(f"() => {{ const B = window.__bench; {NEW_JUMP} }}")
    page.keyboard.press("End")
    wait_for(page, "() => window.__bench.jump.painted !== null", 60, interval_ms=25)
    profile = stop_profiler(cdp)
    painted = page.evaluate("() => window.__bench.jump.painted - window.__bench.jump.t0")
    page.keyboard.press("Home")
    wait_for(page, "() => window.streamscope.renderer.rendered === 0", 30)
    return {
        "title": f"one End jump, {fmt_ms(painted, 0)} under the profiler",
        **profile_summary(profile),
    }


def profile_playback(page: Any, cdp: Any, seconds: float = 10) -> dict[str, Any]:
    """``seconds`` of 1x playback from the start under the profiler (after the measured run)."""
    page.keyboard.press("Home")
    cdp.send("HeapProfiler.collectGarbage")
    wait_idle(page, quiet_ms=400)
    start_profiler(cdp)
    page.keyboard.press(" ")
    page.wait_for_timeout(int(seconds * 1000))
    page.keyboard.press(" ")
    profile = stop_profiler(cdp)
    return {"title": f"{seconds:.0f} s of 1x playback", **profile_summary(profile)}
