"""Operations: ``GET /healthz`` for probes."""

from __future__ import annotations

import time

from flask import Blueprint, Response, jsonify

from ...version import __version__
from ..context import services

ops = Blueprint("ops", __name__)
STARTED = time.time()


@ops.get("/healthz")
def healthz() -> tuple[Response, int]:
    try:
        services().store.get("healthz-probe")
        store = "ok"
    except Exception as exc:  # the probe must answer, whatever the store does
        store = f"error: {type(exc).__name__}"
    streams = services().live.streams
    # Redis (docs/scaling.md) down leaves this process serving (viewers of other processes'
    # runs follow the store), and every process alike: said, but no reason to take it out.
    redis = "off" if streams is None else ("ok" if streams.ping() else "unreachable")
    otel = services().live.otel
    admission = services().admission
    workload = services().workload
    body = {
        "status": "ok" if store == "ok" else "degraded",
        "version": __version__,
        "uptime_s": round(time.time() - STARTED, 1),
        "websockets": admission.active,
        "websocket_capacity": admission.capacity,
        "slow_requests": workload.active,
        "slow_capacity": workload.capacity,
        "live_runs": len(services().live.registry),
        "store": store,
        "redis": redis,
        # docs/otel.md: spans sent, and dropped (a full queue, a receiver that did not take them)
        "otlp": "off" if otel is None else {"exported": otel.exported, "dropped": otel.dropped},
    }
    return jsonify(body), 200 if store == "ok" else 503
