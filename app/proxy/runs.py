"""A run's waterfall and the list of runs, from the proxy's calls listing (docs/runs.md):
``GET /api/proxy/runs``, ``GET /api/proxy/runs/<run>`` and the ``/proxy/runs/<run>`` page.

The calls are the listing's (``calls.py``; with Redis every process's: ``shared.py``), so a run
is followed live while it grows, on every process. A call's place in the waterfall is its start
from the run's first call's start; the gap after a call, up to the next call's start, is the
app's own time (its tools running, its code deciding); the totals add each up. At most
``MAX_CALLS`` calls of a run are shown (the first ones).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..captures.runfile import run_lines
from ..domain.callruns import MAX_CALLS

ACTIVE = ("connecting", "streaming")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _sum(values: list[Any]) -> int | None:
    found = [int(v) for v in values if _number(v) is not None]
    return sum(found) if found else None


def run_view(run: str, listing: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The run's waterfall; None when no listed call is in it."""
    mine = sorted(
        (c for c in listing if c.get("run") == run), key=lambda c: _number(c.get("started")) or 0
    )[:MAX_CALLS]
    if not mine:
        return None
    start = _number(mine[0].get("started")) or 0.0
    calls: list[dict[str, Any]] = []
    gaps: list[dict[str, Any]] = []
    previous_end: float | None = None
    for index, call in enumerate(mine):
        at_ms = round(((_number(call.get("started")) or start) - start) * 1000, 1)
        duration = _number(call.get("duration_ms")) or 0.0
        if previous_end is not None:
            gaps.append(
                {
                    "after": index - 1,
                    "start_ms": round(previous_end, 1),
                    "duration_ms": round(max(0.0, at_ms - previous_end), 1),
                }
            )
        previous_end = max(previous_end or 0.0, at_ms + duration)
        calls.append(
            {
                "index": index,
                "id": call.get("id"),
                "url": call.get("url"),
                "model": call.get("model"),
                "path": call.get("path"),
                "state": call.get("state"),
                "status": call.get("status"),
                "start_ms": at_ms,
                "ttft_ms": call.get("ttft_ms"),
                "duration_ms": duration,
                "input_tokens": call.get("input_tokens"),
                "output_tokens": call.get("tokens"),
                "tool_calls": call.get("tool_calls") or [],
                "stop": call.get("stop"),
                "findings": call.get("findings"),
                "finding_counts": call.get("finding_counts"),
            }
        )
    model_ms = round(sum(float(c["duration_ms"]) for c in calls), 1)
    app_ms = round(sum(float(g["duration_ms"]) for g in gaps), 1)
    return {
        "run": run,
        "started": start,
        "live": any(c.get("state") in ACTIVE for c in mine),
        "calls": calls,
        "gaps": gaps,
        "totals": {
            "calls": len(calls),
            "duration_ms": round(previous_end or 0.0, 1),
            "model_ms": model_ms,
            "app_ms": app_ms,
            "input_tokens": _sum([c["input_tokens"] for c in calls]),
            "output_tokens": _sum([c["output_tokens"] for c in calls]),
        },
    }


def runs_listing(listing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every listed run, newest first: its id, calls, start and whether it is in progress."""
    runs: dict[str, dict[str, Any]] = {}
    for call in listing:
        run = call.get("run")
        if not isinstance(run, str):
            continue
        started = _number(call.get("started")) or 0.0
        entry = runs.setdefault(
            run,
            {"run": run, "url": f"/proxy/runs/{run}", "calls": 0, "started": started},
        )
        entry["calls"] += 1
        entry["started"] = min(entry["started"], started)
        entry["live"] = entry.get("live", False) or call.get("state") in ACTIVE
    return sorted(runs.values(), key=lambda r: r["started"], reverse=True)


def run_file(
    view: dict[str, Any], exists: Callable[[str], bool], read: Callable[[str], bytes]
) -> Iterator[bytes]:
    """A run as one JSON Lines file (docs/capture-format.md, "A run"): a ``run`` record naming
    the captures, then each ended call's timed capture as it is stored, in the run's order
    (one in memory at a time; a call still streaming, or whose recording is gone, is left out)."""
    ids = [
        c["id"]
        for c in view["calls"]
        if c.get("state") not in ACTIVE and isinstance(c.get("id"), str) and exists(c["id"])
    ]
    return run_lines(view["run"], ids, read)
