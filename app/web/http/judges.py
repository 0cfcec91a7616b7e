"""The client judges through the REST API (docs/judges.md, "On a server"):
``POST /api/captures/<id>/judges`` runs them on a stored capture now and keeps their verdicts
with it; ``GET`` of the same URL gives the kept verdicts, or 404 ``no_verdicts`` when none were
run. Both answer ``{"streams": [[verdict, ...], ...]}``, one list per stream.

A run costs a process per judge and stream, so it is capped three ways: the view is heavy (it
counts against the slow-work threads and their share per address, workload.py), one address
may start ``STREAMSCOPE_JUDGES_PER_HOUR`` runs an hour (in this process), and at most
``MAX_STREAMS`` streams of a capture are judged.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

from flask import Blueprint, Response, current_app, jsonify, request

from ...judges.capture import judge_streams
from ...judges.runner import Caps, node_dir
from ..context import services
from ..errors import NotFound, RateLimited
from ..sending import heavy

judges = Blueprint("judges", __name__, url_prefix="/api")

MAX_STREAMS = 8
WINDOW_S = 3600.0
MAX_ADDRESSES = 10_000  # addresses the window remembers; the oldest are forgotten past it
LIMITER_KEY = "streamscope.judges_limiter"


class RunLimiter:
    """At most ``limit`` runs per address in any ``window`` seconds (a sliding window)."""

    def __init__(self, limit: int, window: float = WINDOW_S) -> None:
        self.limit = limit
        self.window = window
        self._runs: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def take(self, address: str, now: float | None = None) -> float | None:
        """Count a run for ``address``: None when it may run, else the seconds until it may."""
        now = time.monotonic() if now is None else now
        with self._lock:
            runs = self._runs[address]
            while runs and runs[0] <= now - self.window:
                runs.popleft()
            if len(runs) >= self.limit:
                return runs[0] + self.window - now
            runs.append(now)
            if len(self._runs) > MAX_ADDRESSES:
                del self._runs[next(iter(self._runs))]
            return None


def _limiter() -> RunLimiter:
    found = current_app.extensions.get(LIMITER_KEY)
    if found is None:
        found = current_app.extensions.setdefault(
            LIMITER_KEY, RunLimiter(services().settings.judges_per_hour)
        )
    return found


@judges.app_context_processor
def _templates() -> dict[str, object]:
    """``judged(id)`` for the page's panel (templates/_judges.html): whether verdicts are kept,
    so that the page asks for them only then (a 404 would be a console error in a browser)."""

    def judged(capture_id: str) -> bool:
        return services().store.judge_verdicts(capture_id) is not None

    return {"judged": judged}


def _missing() -> NotFound:
    return NotFound("no such capture (deleted, expired, or never uploaded)", code="no_capture")


@judges.post("/captures/<capture_id>/judges")
@heavy
def run(capture_id: str) -> Response:
    store = services().store
    if store.get(capture_id) is None:
        raise _missing()
    wait = _limiter().take(request.remote_addr or "?")
    if wait is not None:
        limit = services().settings.judges_per_hour
        raise RateLimited(
            f"this address has run the judges {limit} times this hour "
            f"(STREAMSCOPE_JUDGES_PER_HOUR); try again in {wait / 60:.0f} min",
            code="too_many_judge_runs",
        )
    settings = services().settings
    capture = services().sources.stored(capture_id).capture
    caps = Caps(timeout_s=settings.judges_timeout_s, memory_mb=settings.judges_memory_mb)
    streams = judge_streams(
        capture.streams, caps, node_dir(settings.data_dir), max_streams=MAX_STREAMS
    )
    store.remember_verdicts(capture_id, streams)
    response = jsonify({"streams": streams})
    response.headers["Cache-Control"] = "no-store"
    return response


@judges.get("/captures/<capture_id>/judges")
def cached(capture_id: str) -> Response:
    store = services().store
    if store.get(capture_id) is None:
        raise _missing()
    found = store.judge_verdicts(capture_id)
    if found is None:
        raise NotFound(
            "the judges have not been run on this capture (POST to this URL runs them)",
            code="no_verdicts",
        )
    response = jsonify(found)
    response.headers["Cache-Control"] = "no-cache"
    return response
