"""The Redis room bus (app/rooms/redis_bus.py) against a real ``redis-server`` beyond the
contract every bus keeps (tests/test_rooms.py, ``BUSES``): two buses as two processes, states
racing from both numbered in one order, and Redis killed (SIGKILL) and started again."""

from __future__ import annotations

import threading
import time

import pytest

from app.live.streams import RedisStreams
from app.rooms.bus import Mirror
from app.rooms.redis_bus import RedisBus

from .redis_server import serving

pytestmark = pytest.mark.integration  # starts a real redis-server

STATE = {"playing": False, "t": 1.0, "cursor": None, "speed": 1, "token": None, "tool": None}


@pytest.fixture
def redis_server():
    yield from serving()


class Process:
    """One process's bus, with the store a test keeps for it (the newest state per room)."""

    def __init__(self, url: str, store: dict[str, Mirror]) -> None:
        self.streams = RedisStreams(url, maxlen=64, ttl=60, ttl_after=60, timeout=1.0)
        self.bus = RedisBus(self.streams, stored=store.get)

    def close(self) -> None:
        self.bus.close()
        self.streams.shut()


def eventually(check, seconds: float = 15.0) -> bool:
    """A bound, not a timing."""
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(check())


def test_states_racing_from_two_processes_are_heard_in_one_order_by_both(redis_server):
    store: dict[str, Mirror] = {}
    a, b = Process(redis_server.url, store), Process(redis_server.url, store)
    room = "racing"
    heard: dict[str, list[Mirror]] = {"a": [], "b": []}
    a.bus.subscribe(room, heard["a"].append)
    b.bus.subscribe(room, heard["b"].append)
    published: list[Mirror] = []

    def present(bus: RedisBus, name: str) -> None:
        for i in range(50):
            published.append(bus.publish(room, "seek", {**STATE, "t": float(i)}, 0.0))

    try:
        threads = [
            threading.Thread(target=present, args=(p.bus, n)) for p, n in ((a, "a"), (b, "b"))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(m.seq for m in published) == list(range(1, 101))
        for name in heard:
            assert eventually(lambda n=name: len(heard[n]) == 100), len(heard[name])
        assert [m.seq for m in heard["a"]] == list(range(1, 101))
        assert heard["a"] == heard["b"]  # the same states under the same numbers
        assert {(m.seq, m.state["t"]) for m in heard["a"]} == {
            (m.seq, m.state["t"]) for m in published
        }
    finally:
        a.close()
        b.close()


def test_a_quiet_room_is_not_taken_for_redis_being_away(redis_server):
    process = Process(redis_server.url, {})
    pauses: list[bool] = []
    try:
        process.bus.subscribe("quiet", lambda _m: None, pauses.append)
        time.sleep(4 * process.streams.timeout)  # several blocking reads with nothing to read
        assert pauses == []
    finally:
        process.close()


def test_redis_killed_the_other_process_is_told_follows_the_store_and_comes_back(redis_server):
    store: dict[str, Mirror] = {}
    a, b = Process(redis_server.url, store), Process(redis_server.url, store)
    room = "outage"
    heard_a: list[Mirror] = []
    heard_b: list[Mirror] = []
    pauses: list[bool] = []

    def present(t: float) -> Mirror:
        """As the room service does: seed from the store, publish, save."""
        if room in store:
            a.bus.seed(store[room])
        mirror = a.bus.publish(room, "seek", {**STATE, "t": t}, 0.0)
        store[room] = mirror
        return mirror

    try:
        a.bus.subscribe(room, heard_a.append)
        b.bus.subscribe(room, heard_b.append, pauses.append)
        assert present(1.0).seq == 1
        assert eventually(lambda: [m.seq for m in heard_b] == [1])

        redis_server.kill()
        away = [present(float(t)) for t in (2, 3, 4)]  # no exception, numbered on
        assert [m.seq for m in away] == [2, 3, 4]
        assert [m.seq for m in heard_a] == [1, 2, 3, 4]  # the presenter's process hears them
        assert eventually(lambda: pauses == [True])
        assert eventually(lambda: heard_b[-1].seq == 4)  # through the store
        assert a.bus.latest(room).seq == 4  # what this process knows

        redis_server.start()  # empty: Redis kept nothing
        assert eventually(lambda: pauses == [True, False])
        assert present(5.0).seq == 5  # seeded from the store, numbered on
        assert eventually(lambda: heard_b[-1].seq == 5)
        seqs = [m.seq for m in heard_b]
        assert seqs == sorted(set(seqs)) and seqs[0] == 1 and seqs[-1] == 5
        assert b.bus.latest(room).state["t"] == 5.0
    finally:
        a.close()
        b.close()
