"""Faults between Streamscope and the upstream, through a fault-injecting TCP proxy on
loopback: with latency or bytes sliced small, the same tokens arrive as without faults; with a
reset mid-stream, the error is shown and the partial recording kept."""

from __future__ import annotations

import pytest

from .fault_proxy import FaultProxy, Faults
from .live_server import LiveServer
from .test_live import collect, events, start, started, stored

pytestmark = pytest.mark.integration  # starts real servers on loopback

MODEL = "replay:openai-gpt4o-tool-parallel.sse"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("faults-data")).start()
    yield live
    live.stop()


def meaning(messages: list[dict]) -> list[tuple]:
    """What the stream said, independent of timing and of how reads were cut."""
    kept = ("text", "tool_start", "tool_args", "tool_end", "finish", "usage")
    return [
        (e["kind"], e.get("text"), e.get("call"), e.get("arguments"), e.get("reason"))
        for e in events(messages)
        if e["kind"] in kept
    ]


def run_through(server, fake, faults: Faults | None) -> list[dict]:
    proxy = FaultProxy(fake.port, faults) if faults else None
    try:
        base = f"{proxy.url}/v1" if proxy else fake.url
        ws = start(server, fake, MODEL, base_url=base, key=None)
        messages = collect(ws)
        ws.close()
        return messages
    finally:
        if proxy:
            proxy.stop()


@pytest.fixture(scope="module")
def reference(server, fake):
    messages = run_through(server, fake, None)
    assert messages[-1]["reason"] == "done"
    return meaning(messages)


@pytest.mark.parametrize(
    "faults",
    [Faults(latency_ms=30), Faults(slice_bytes=7), Faults(slice_bytes=1, latency_ms=1)],
    ids=["latency", "slices-of-7-bytes", "one-byte-slices"],
)
def test_same_tokens_arrive_as_without_faults(server, fake, reference, faults):
    messages = run_through(server, fake, faults)
    assert messages[-1]["reason"] == "done"
    assert meaning(messages) == reference


def test_a_reset_mid_stream_is_shown_and_the_partial_recording_kept(server, fake, reference):
    messages = run_through(server, fake, Faults(reset_after=2500))
    end = messages[-1]
    assert end["type"] == "end" and end["reason"] == "disconnected"
    assert "closed the connection mid-stream" in end["error"]
    partial = meaning(messages)
    # Calls cut short are closed at the end of the stream, with their incomplete arguments.
    closed_at_end = [m for m in partial if m[0] == "tool_end" and m not in reference]
    partial = [m for m in partial if m not in closed_at_end]
    assert 0 < len(partial) < len(reference)
    assert partial == reference[: len(partial)]
    ends = [e for e in events(messages) if e["kind"] == "tool_end" and e["status"] == "invalid"]
    assert ends and all(e["incomplete"] for e in ends)
    capture, _ = stored(server, started(messages)["capture"])
    stream = capture.streams[0]
    assert stream.end_reason == "disconnected"
    kept = [
        (e.kind, getattr(e, "text", None)) for e in stream.events if e.kind in ("text", "tool_args")
    ]
    assert kept == [(k, t) for k, t, *_ in partial if k in ("text", "tool_args")]
