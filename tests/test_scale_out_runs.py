"""A run across processes (docs/runs.md, "Across processes"): the openai SDK's tool loop with
its first turn through one ``serve --production`` process and its second through another,
sharing PostgreSQL and Redis, is one run, listed as one on both."""

from __future__ import annotations

import time

import pytest

from .proxy_helpers import get_json
from .test_proxy_runs import openai_loop, settled
from .test_scale_out import backends  # noqa: F401 (the module's PostgreSQL and Redis)
from .test_scale_out_proxy import pair, upstream  # noqa: F401 (the two processes)

pytestmark = pytest.mark.integration  # starts real servers on loopback


def test_a_tool_loop_over_two_processes_is_one_run(pair):  # noqa: F811
    a, b = pair
    turns = openai_loop(a, "Paris", then=b)
    assert [len(t["calls"]) for t in turns] == [1, 0]
    first, second = settled(b, 2)  # b lists a's call too (Redis)
    assert first["run"] == second["run"]
    for server in (a, b):  # each process's listing gets the other's through Redis, soon
        deadline = time.monotonic() + 10
        while True:
            view = get_json(server, f"/api/proxy/runs/{first['run']}")
            ids = [c["id"] for c in view["calls"]]
            if ids == [first["id"], second["id"]] or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert ids == [first["id"], second["id"]]
