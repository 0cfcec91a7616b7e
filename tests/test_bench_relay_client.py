"""bench_relay.py's baseline client reaches a real server (the Host check refuses a Host header
without the port, which simple_websocket's client sent: the bench stopped at a 400)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .live_server import LiveServer

BENCH = Path(__file__).resolve().parent.parent / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from relay_runs import Follower  # noqa: E402

pytestmark = pytest.mark.integration


def test_the_baseline_client_is_answered(tmp_path):
    with LiveServer(tmp_path / "data") as server:
        follower = Follower(server.url, "no-such-capture")
        try:
            assert follower.ended.wait(20)
        finally:
            follower.close()
    assert follower.error is None
    last = json.loads(follower.received[-1][1])
    assert last["type"] == "error"
