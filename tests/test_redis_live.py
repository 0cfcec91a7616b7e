"""A live run published to Redis (app/live/publish.py) and followed by a mirror as another
process would (app/live/mirror.py), against a real redis-server and a real SQLite store: the
hub is driven read by read, as the upstream thread drives it. Every event arrives once, in
order; a viewer resumes from its count; Redis killed mid-run sends the mirror to the stored
recording (and says so) and back to the live edge when it returns; a trimmed stream's start
comes from the store; a Stop asked through the control stream ends the run."""

from __future__ import annotations

import itertools
import json
import time

import pytest

from app.live.mirror import Mirror, Mirrors
from app.live.publish import RunPublisher, request_stop, stream_key
from app.live.streams import RedisStreams

from .redis_server import RedisServer, serving
from .test_hub import new_run, sse, store  # noqa: F401  (a fixture)

WAIT_S = 30.0


@pytest.fixture
def redis_server():
    yield from serving()


def transport(server: RedisServer, maxlen: int = 1000) -> RedisStreams:
    return RedisStreams(server.url, maxlen=maxlen, ttl=600, ttl_after=30, timeout=0.5)


def wait_for(check, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"not within {WAIT_S} s: {what}")


def mirror_messages(mirror: Mirror) -> list[dict]:
    with mirror.cond:
        return [json.loads(p.message) for p in mirror.log if p.message]


def texts(messages: list[dict]) -> list[str]:
    return [
        e["text"] for m in messages if m["type"] == "events" for e in m["events"] if "text" in e
    ]


def run_events(run) -> list[dict]:
    return [e.to_json() for e in run.stream.events]


def mirror_events(messages: list[dict]) -> list[dict]:
    return [e for m in messages if m["type"] == "events" for e in m["events"]]


def published(server: RedisServer, capture_id: str) -> int:
    client = transport(server)
    try:
        return len(client.read(stream_key(capture_id), b"0", 0, count=100000))
    finally:
        client.shut()


def follow(store, server, capture_id: str, maxlen: int = 1000) -> Mirror:  # noqa: F811
    mirror = Mirrors(transport(server, maxlen), store, 250.0, 3600.0).follow(capture_id)
    assert mirror is not None, "a live run's recording without an end is followed"
    return mirror


def test_a_run_is_followed_through_redis_every_event_once_in_order(store, redis_server):  # noqa: F811
    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.status("connecting", "connecting to upstream")
    run.response(1.0, 200, "text/event-stream")
    run.read(2.0, sse("t0"))
    wait_for(lambda: publisher.published >= 1, "the first entry")
    mirror = follow(store, redis_server, run.capture_id)
    for i in range(1, 40):
        run.read(2.0 + i, sse(f"t{i}"))
        wait_for(lambda: publisher.index >= len(run.log), "an entry per read")
    run.end(50.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end")
    messages = mirror_messages(mirror)
    assert texts(messages) == [f"t{i}" for i in range(40)]
    assert mirror_events(messages) == run_events(run)
    assert [m["type"] for m in messages][-3:] == ["summary", "findings", "end"]
    assert messages[-2]["final"] is True  # judged once more at the end, from the mirror's copy
    assert messages[-1]["reason"] == "done"
    assert not any(m["type"] == "status" and m["state"] == "fallback" for m in messages)
    # Delivered as a local run's writer delivers: consecutive entries merged into one
    # raw_meta and one events message (hub.py), not one of each per entry.
    delivered = [json.loads(t) for t in mirror.messages(mirror.log)]
    assert mirror_events(delivered) == run_events(run)
    types = [m["type"] for m in delivered]
    timeline = {"raw_meta", "events"}
    assert not [pair for pair in itertools.pairwise(types) if set(pair) <= timeline
                and pair != ("raw_meta", "events")]  # fmt: skip
    assert types.count("raw_meta") == 2  # the first entry (a snapshot, then its status), the rest
    metas = [m for m in delivered if m["type"] == "raw_meta"]
    whole = json.loads(run.encoder.raw_meta(0))
    assert [m["start"] for m in metas] == [0, len(metas[0]["t"])]
    assert metas[0]["t"] + metas[1]["t"] == whole["t"]
    assert metas[0]["event"] + metas[1]["event"] == whole["event"]
    # A later viewer of the same run, resuming with 25 events: the rest, each once.
    catch_up, index = mirror.snapshot(25)
    resumed = [json.loads(t) for t in catch_up]
    assert texts(resumed) == [f"t{i}" for i in range(25, 40)]
    assert resumed[-1]["type"] == "end" and index == len(mirror.log)
    publisher.thread.join(WAIT_S)
    assert not publisher.thread.is_alive()
    client = transport(redis_server)
    assert 0 < client.client.ttl(stream_key(run.capture_id)) <= 30  # expires after the end
    # Ended: the next viewer replays the stored recording instead of following.
    assert Mirrors(client, store, 250.0, 3600.0).follow(run.capture_id) is None
    client.client.delete(stream_key(run.capture_id))  # expired: the stored end record decides
    mirrors = Mirrors(client, store, 250.0, 3600.0)
    assert mirrors.follow(run.capture_id) is None
    assert run.capture_id in mirrors._ended  # and is not read again for the next viewer


def test_redis_killed_mid_run_the_mirror_follows_the_store_then_the_live_edge(
    store,  # noqa: F811
    redis_server,
):
    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    for i in range(10):
        run.read(1.0 + i, sse(f"t{i}"))
    mirror = follow(store, redis_server, run.capture_id)
    wait_for(lambda: len(texts(mirror_messages(mirror))) == 10, "the first ten events")
    redis_server.kill()
    for i in range(10, 20):
        run.read(1.0 + i, sse(f"t{i}"))
    run.recorder.flush()  # the recorder writes every quarter second; the test does not wait
    wait_for(lambda: len(texts(mirror_messages(mirror))) == 20, "events from the store")
    messages = mirror_messages(mirror)
    assert any(m["type"] == "status" and m["state"] == "fallback" for m in messages)
    redis_server.start()  # empty: it lost the stream
    wait_for(lambda: any(m.get("state") == "live" for m in mirror_messages(mirror)), "back to live")
    for i in range(20, 30):
        run.read(1.0 + i, sse(f"t{i}"))
    run.end(40.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end")
    messages = mirror_messages(mirror)
    assert texts(messages) == [f"t{i}" for i in range(30)]
    assert mirror_events(messages) == run_events(run)
    assert [m["type"] for m in messages].count("end") == 1
    states = [m["state"] for m in messages if m["type"] == "status"]
    assert states.index("fallback") < states.index("live")
    publisher.thread.join(WAIT_S)


def test_redis_down_for_the_rest_of_the_run_the_store_gives_every_event_and_the_end(
    store,  # noqa: F811
    redis_server,
):
    run, _ = new_run(store)
    RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    run.read(1.0, sse("t0"))
    mirror = follow(store, redis_server, run.capture_id)
    redis_server.kill()
    for i in range(1, 15):
        run.read(1.0 + i, sse(f"t{i}"))
    run.end(20.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end, from the store")
    messages = mirror_messages(mirror)
    assert texts(messages) == [f"t{i}" for i in range(15)]
    assert mirror_events(messages) == run_events(run)
    assert messages[-1] == {"type": "end", "reason": "done", "error": None}


def test_a_trimmed_stream_gives_its_start_from_the_store(store, redis_server):  # noqa: F811
    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server, maxlen=1)).start()
    run.response(1.0, 200, "text/event-stream")
    for i in range(300):
        run.read(1.0 + i / 100, sse(f"t{i}"))
        if i % 10 == 0:
            wait_for(lambda: publisher.index >= len(run.log), "published")
    wait_for(lambda: publisher.index >= len(run.log), "published")
    run.recorder.flush()
    assert published(redis_server, run.capture_id) < 300  # the start is gone from Redis
    mirror = follow(store, redis_server, run.capture_id, maxlen=1)
    run.read(9.0, sse("last"))
    run.end(10.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end")
    messages = mirror_messages(mirror)
    assert texts(messages) == [f"t{i}" for i in range(300)] + ["last"]


def test_a_stop_through_the_control_stream_stops_the_run(store, redis_server):  # noqa: F811
    run, upstream = new_run(store)
    client = transport(redis_server)
    RunPublisher(run, client).start()
    run.response(1.0, 200, "text/event-stream")
    run.read(1.0, sse("t0"))
    assert request_stop(client, run.capture_id, b"deleted")
    wait_for(lambda: upstream.stops, "the stop")
    assert upstream.stops[0][0] == "cancelled"
    with pytest.raises(ValueError):
        request_stop(client, run.capture_id, b"anything")
    run.end(2.0, "cancelled", "stopped")


def test_a_class_opening_the_link_together_makes_one_mirror(store, redis_server):  # noqa: F811
    import threading

    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    run.read(1.0, sse("t0"))
    wait_for(lambda: publisher.published >= 1, "the first entry")
    mirrors = Mirrors(transport(redis_server), store, 250.0, 3600.0)
    reads: list[str] = []
    read_bytes = store.read_bytes

    def counted(capture_id: str) -> bytes:
        reads.append(capture_id)
        return read_bytes(capture_id)

    store.read_bytes = counted  # how many times the recording is read to make the mirror
    found: list[Mirror | None] = []
    threads = [
        threading.Thread(target=lambda: found.append(mirrors.follow(run.capture_id)))
        for _ in range(20)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    assert len(found) == 20 and found[0] is not None
    assert all(mirror is found[0] for mirror in found)
    assert len(reads) == 1  # one mirror made, and the recording read once for it
    run.end(2.0, "done", None)
    wait_for(lambda: found[0].finished, "the mirror's end")


def test_a_page_resuming_on_a_new_mirror_gets_only_what_it_lacks(store, redis_server):  # noqa: F811
    import threading

    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    for i in range(30):
        run.read(1.0 + i, sse(f"t{i}"))
    wait_for(lambda: publisher.index >= len(run.log), "published")
    had = len(run.stream.events) // 2  # the page had these, from the other process
    # A mirror made for this page that has not read its stream yet (its thread starts later).
    mirror = Mirror(run.capture_id, transport(redis_server), store, 250.0, time.time() + 3600)
    answer: list[tuple[list[str], int]] = []
    asking = threading.Thread(target=lambda: answer.append(mirror.snapshot(had)))
    asking.start()
    time.sleep(0.2)
    mirror.start()
    asking.join(WAIT_S)
    run.end(40.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end")
    catch_up, index = answer[0]
    later = list(mirror.messages(mirror.log[index:]))
    got = mirror_events([json.loads(t) for t in [*catch_up, *later]])
    assert got == run_events(run)[had:]  # nothing twice, nothing missing
