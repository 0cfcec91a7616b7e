"""The Redis Streams transport (app/live/streams.py) against a real redis-server on a free
loopback port: entries in order, reading on from an id, MAXLEN, expiry, the control stream,
and one clear exception, bounded in time, when Redis is gone."""

from __future__ import annotations

import pytest

from app.live.streams import RedisStreams, StreamsDown

from .redis_server import RedisServer, serving


@pytest.fixture(scope="module")
def redis_server():
    yield from serving()


@pytest.fixture
def streams(redis_server):
    client = RedisStreams(redis_server.url, maxlen=100, ttl=600, ttl_after=30, timeout=1.0)
    yield client
    client.shut()


def test_entries_come_back_in_order_and_reading_goes_on_from_an_id(streams):
    ids = [streams.append("t:order", {b"n": str(i).encode()}) for i in range(5)]
    everything = streams.read("t:order", b"0", 0)
    assert [e.fields[b"n"] for e in everything] == [b"0", b"1", b"2", b"3", b"4"]
    assert [e.id for e in everything] == ids
    rest = streams.read("t:order", ids[2], 0)
    assert [e.fields[b"n"] for e in rest] == [b"3", b"4"]
    assert streams.read("t:order", ids[-1], 0.05) == []  # nothing new: waits, then nothing
    assert streams.last("t:order").fields == {b"n": b"4"}
    assert streams.last("t:missing") is None


def test_maxlen_bounds_a_stream_and_keys_expire(streams):
    for i in range(1000):
        streams.append("t:capped", {b"n": str(i).encode()})
    length = streams.client.xlen("t:capped")
    assert length < 1000 and length >= 100  # trimmed to about MAXLEN (whole nodes)
    assert streams.read("t:capped", b"0", 0, count=10000)[-1].fields[b"n"] == b"999"
    assert 0 < streams.client.ttl("t:capped") <= 600
    streams.request("t:capped", {b"stop": b"deleted"})
    streams.close("t:capped")
    assert 0 < streams.client.ttl("t:capped") <= 30
    assert 0 < streams.client.ttl("t:capped:control") <= 30


def test_control_requests_are_read_apart_from_the_entries(streams):
    streams.append("t:ctl", {b"m": b"entry"})
    first = streams.request("t:ctl", {b"stop": b"deleted"})
    streams.request("t:ctl", {b"stop": b"other"})
    assert [r.fields for r in streams.requests("t:ctl", b"0")] == [
        {b"stop": b"deleted"},
        {b"stop": b"other"},
    ]
    assert [r.fields for r in streams.requests("t:ctl", first)] == [{b"stop": b"other"}]
    assert [e.fields for e in streams.read("t:ctl", b"0", 0)] == [{b"m": b"entry"}]


def test_redis_gone_is_one_exception_and_back_is_usable_again():
    server = RedisServer().start()
    client = RedisStreams(server.url, maxlen=100, ttl=60, ttl_after=5, timeout=0.5)
    try:
        kept = client.append("t:gone", {b"n": b"0"})
        server.kill()  # SIGKILL: nothing saved
        for call in (
            lambda: client.append("t:gone", {b"n": b"1"}),
            lambda: client.read("t:gone", kept, 0.2),
            lambda: client.last("t:gone"),
            lambda: client.requests("t:gone", b"0"),
            lambda: client.close("t:gone"),
        ):
            with pytest.raises(StreamsDown):
                call()
        assert client.ping() is False
        server.start()
        assert client.ping() is True
        assert client.last("t:gone") is None  # a restart without persistence lost it
        client.append("t:gone", {b"n": b"2"})
        assert [e.fields for e in client.read("t:gone", kept, 0)] == [{b"n": b"2"}]
    finally:
        client.shut()
        server.stop()


def test_a_blocking_read_is_answered_by_an_entry_written_meanwhile(streams):
    import threading

    start = streams.append("t:block", {b"n": b"0"})
    timer = threading.Timer(0.1, lambda: streams.append("t:block", {b"n": b"1"}))
    timer.start()
    try:
        found = streams.read("t:block", start, 5.0)
    finally:
        timer.join()
    assert [e.fields[b"n"] for e in found] == [b"1"]


def test_a_blocking_read_as_long_as_the_timeout_waits_and_finds_nothing(streams):
    # redis-py reads every answer within the client's socket timeout: on one client, a
    # quiet stream read with BLOCK as long as that timeout always failed ("Timeout reading
    # from socket"), so a live run's viewer on another process was told Redis was away
    # whenever the run was quiet for a second (app/live/mirror.py reads with a 1 s block).
    last = streams.append("t:quiet", {b"n": b"0"})
    for _ in range(2):
        assert streams.read("t:quiet", last, streams.timeout) == []
