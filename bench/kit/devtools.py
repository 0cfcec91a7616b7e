"""Where a page's time goes: CPU profiles (CDP ``Profiler``) and Chromium traces, summed up
on the renderer's main thread."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "v8",
    "disabled-by-default-v8.gc",
    "blink",
]


class ProfileSummary(TypedDict):
    busy_ms: float  # sampled time not idle (JS, and "(program)" / "(garbage collector)")
    functions: list[tuple[str, float, float]]  # (function @ file:line, self ms, total ms)


def start_profiler(cdp: Any, interval_us: int = 200) -> None:
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": interval_us})
    cdp.send("Profiler.start")


def stop_profiler(cdp: Any) -> dict[str, Any]:
    profile: dict[str, Any] = cdp.send("Profiler.stop")["profile"]
    cdp.send("Profiler.disable")
    return profile


def _function(node: dict[str, Any]) -> str:
    frame = node["callFrame"]
    url = frame.get("url", "")
    where = url.rsplit("/static/", 1)[-1] if "/static/" in url else url.rsplit("/", 1)[-1]
    name = frame.get("functionName") or "(anonymous)"
    return f"{name} @ {where}:{frame.get('lineNumber', -1) + 1}" if where else name


def profile_summary(profile: dict[str, Any]) -> ProfileSummary:
    """A CDP CPU profile as self and total (self + callees) ms per function, largest total
    first, idle time left out. A sample lasts until the next one (as DevTools counts it);
    style, layout, paint and GC outside JS show as "(program)" and "(garbage collector)"."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    deltas = profile.get("timeDeltas", [])
    self_us: dict[int, float] = {}
    for sample, delta in zip(profile.get("samples", []), [*deltas[1:], 0], strict=False):
        self_us[sample] = self_us.get(sample, 0.0) + delta
    by_self: dict[str, float] = {}
    by_total: dict[str, float] = {}
    for node_id, us in self_us.items():
        name = _function(nodes[node_id])
        by_self[name] = by_self.get(name, 0.0) + us
        seen: set[str] = set()
        walk: int | None = node_id
        while walk is not None:
            name = _function(nodes[walk])
            if name not in seen and name != "(root)":
                by_total[name] = by_total.get(name, 0.0) + us
                seen.add(name)
            walk = parent.get(walk)
    rows = [
        (name, by_self.get(name, 0.0) / 1000, us / 1000)
        for name, us in by_total.items()
        if name != "(idle)"
    ]
    busy = sum(us for name, us in by_self.items() if name != "(idle)") / 1000
    return {"busy_ms": busy, "functions": sorted(rows, key=lambda r: -r[2])}


def profile_table(summary: ProfileSummary, top: int = 20) -> str:
    lines = ["| function | total | self |", "|---|---|---|"]
    lines += [f"| {n} | {t:.0f} ms | {s:.0f} ms |" for n, s, t in summary["functions"][:top]]
    return "\n".join(lines)


def renderer_main_spans(path: Path) -> list[dict[str, Any]]:
    """The complete events (``ph: X``) of the page renderers' main threads in a trace."""
    data = json.loads(path.read_text())
    events: list[dict[str, Any]] = data["traceEvents"] if isinstance(data, dict) else data
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and (e.get("args") or {}).get("name") == "CrRendererMain"
    }
    return [e for e in events if e.get("ph") == "X" and (e.get("pid"), e.get("tid")) in main]


def long_tasks(path: Path, over_ms: float = 50.0) -> list[str]:
    """Each main-thread task over ``over_ms``, with what inside it took the most time."""
    spans = renderer_main_spans(path)
    lines = []
    for task in spans:
        if task["name"] != "RunTask" or task.get("dur", 0) < over_ms * 1000:
            continue
        start, end = task["ts"], task["ts"] + task["dur"]
        inside: dict[str, float] = {}
        for e in spans:
            if e is not task and start <= e["ts"] < end and e.get("dur"):
                inside[e["name"]] = inside.get(e["name"], 0.0) + e["dur"] / 1000
        top = sorted(inside.items(), key=lambda kv: -kv[1])[:6]
        what = ", ".join(f"{name} {ms:.1f} ms" for name, ms in top)
        lines.append(f"{task['dur'] / 1000:.0f} ms task: {what}")
    return lines


PHASES = {
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


def trace_totals(path: Path) -> list[tuple[str, float, int]]:
    """The main thread's time as (what, total ms, count), largest first: busy time (tasks),
    the rendering phases, JS by function and paint by element. Nested events overlap (a task
    contains its JS, layout and paint)."""
    totals: dict[str, list[float]] = {}

    def add(key: str, dur: float) -> None:
        entry = totals.setdefault(key, [0.0, 0])
        entry[0] += dur / 1000
        entry[1] += 1

    for e in renderer_main_spans(path):
        name, dur, args = e.get("name", ""), e.get("dur", 0), e.get("args") or {}
        if name in PHASES:
            add(PHASES[name], dur)
        data = args.get("data", {})
        if name == "FunctionCall":
            where = f"{data.get('url', '').rsplit('/', 1)[-1] or '(init script)'}:{data.get('lineNumber')}"
            add(f"JS {data.get('functionName') or '(anonymous)'} @ {where}", dur)
        elif name == "Paint" and data.get("nodeName"):
            add(f"paint {data['nodeName'][:40]}", dur)
    return sorted(((k, v[0], int(v[1])) for k, v in totals.items()), key=lambda r: -r[1])
