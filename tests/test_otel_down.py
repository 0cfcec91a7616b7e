"""A receiver that is down never breaks or slows a proxied call (docs/otel.md, "Never in a
call's way"): Streamscope's real proxy in front of the fake upstream, with
``STREAMSCOPE_OTLP_ENDPOINT`` on a loopback port where nothing listens, and the same server
without export for the times. Each answer is the upstream's, byte for byte; the calls take as
long as without export; ``/healthz`` counts the dropped spans and the log says so once."""

from __future__ import annotations

import statistics
import time

import httpx
import pytest

from .live_server import free_port
from .proxy_helpers import finished_call, get_json, proxy_server, writes

pytestmark = pytest.mark.integration  # starts real servers on loopback

MODEL = "replay:openai-gpt4o-content-plain.sse"
WARM = 2  # calls before the times are kept (the first ones load what they use)
CALLS = 8


def call(server) -> tuple[bytes, float]:
    body = {"model": MODEL, "stream": True}
    started = time.perf_counter()
    with httpx.stream(
        "POST", f"{server.url}/proxy/local/v1/chat/completions", json=body, timeout=30
    ) as answer:
        assert answer.status_code == 200
        got = b"".join(answer.iter_raw())
    return got, time.perf_counter() - started


def test_a_receiver_that_is_down_leaves_the_calls_as_they_were(tmp_path, fake):
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    env = {"STREAMSCOPE_OTLP_ENDPOINT": down}
    with (
        proxy_server(tmp_path / "off", fake) as off,
        proxy_server(tmp_path / "down", fake, env=env) as dead,
    ):
        assert get_json(off, "/healthz")["otlp"] == "off"
        assert get_json(dead, "/healthz")["otlp"] == {"exported": 0, "dropped": 0}
        timings: dict[str, list[float]] = {"off": [], "down": []}
        for number in range(WARM + CALLS):  # the two servers in turn, under the same load
            for name, server in (("off", off), ("down", dead)):
                got, seconds = call(server)
                assert got == b"".join(writes(fake.requests[-1]))  # intact
                assert finished_call(server)["state"] == "done"
                if number >= WARM:
                    timings[name].append(seconds)
        deadline = time.monotonic() + 20
        while get_json(dead, "/healthz")["otlp"]["dropped"] < WARM + CALLS:
            assert time.monotonic() < deadline, get_json(dead, "/healthz")
            time.sleep(0.1)
        assert get_json(dead, "/healthz")["otlp"] == {"exported": 0, "dropped": WARM + CALLS}
        # A models listing through the proxy is recorded, but it is no GenAI operation: no span.
        # The worker takes calls in order, so the chat call after it is the next one counted.
        with httpx.Client(timeout=30) as client:
            assert client.get(f"{dead.url}/proxy/local/v1/models").status_code == 200
        assert finished_call(dead)["path"] == "/v1/models"
        call(dead)
        finished_call(dead)
        deadline = time.monotonic() + 20
        while get_json(dead, "/healthz")["otlp"]["dropped"] < WARM + CALLS + 1:
            assert time.monotonic() < deadline, get_json(dead, "/healthz")
            time.sleep(0.1)
        time.sleep(0.5)
        assert get_json(dead, "/healthz")["otlp"]["dropped"] == WARM + CALLS + 1
        said = [line for line in dead.log().splitlines() if "span(s) dropped" in line]
        assert len(said) == 1, said  # one line, not one per call
    # The replay writes an event every 10 ms; the calls take as long with a dead receiver as
    # without export. This machine's other load only ever slows a call, so the lower quartiles
    # are compared (bench/bench_otel.py measures the cost per read); and no call waited for
    # the exporter's timeout (5 s).
    low_off = statistics.quantiles(timings["off"], n=4)[0]
    low_dead = statistics.quantiles(timings["down"], n=4)[0]
    assert low_dead < low_off * 1.1 + 0.02, timings
    assert max(timings["down"]) < 2.5, timings
