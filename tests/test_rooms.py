"""Presenter rooms without a server: the state a presenter may send, the bus that orders the
states, the store that keeps rooms (SQLite and a real PostgreSQL), and the service that makes
rooms and checks every presenter message (docs/teaching.md, docs/security.md "Presenter rooms")."""

from __future__ import annotations

import json
import re
import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from app.live.streams import RedisStreams
from app.protocol import ProtocolError
from app.rooms.bus import LocalBus, Mirror, RoomBus
from app.rooms.redis_bus import RedisBus
from app.rooms.service import RoomRefused, RoomService
from app.rooms.state import THEMES, ZOOMS, advance, parse_action, parse_state
from app.settings import load
from app.storage import NewCapture, open_store
from app.storage.rooms import ROOM_IDLE_S
from app.web.errors import RateLimited
from app.web.http.pages import THEMES as page_themes
from app.web.ws.admission import Admission

from .redis_server import serving

STATE = {
    "playing": False,
    "t": 120.5,
    "cursor": 4,
    "speed": 1,
    "token": {"lane": "text", "choice": 0, "token": 2},
    "tool": {"stream": 0, "choice": 0, "call": 1},
    "theme": "dark",
    "zoom": 1,
}


def unique() -> str:
    return uuid.uuid4().hex


def capture(store, expires_in=None) -> str:
    record, _ = store.add(
        NewCapture(
            data=b"data: [DONE]\n\n", title="t", format="sse", streams=1, expires_in=expires_in
        )
    )
    return record.id


# ---------------------------------------------------------------------- the state
def test_a_whole_state_is_taken_and_normalised():
    parsed = parse_state(STATE)
    assert parsed == {**STATE, "t": 120.5}
    assert parse_state({**STATE, "speed": "max", "cursor": None, "token": None, "tool": None})
    block = parse_state({**STATE, "tool": {"stream": 1, "choice": 0, "block": 3}})
    assert block["tool"] == {"stream": 1, "choice": 0, "block": 3}
    lane = parse_state({**STATE, "token": {"choice": 1, "token": 0}})
    assert lane["token"] == {"lane": "text", "choice": 1, "token": 0}


def test_the_projector_settings_are_mirrored_too():
    """The high-contrast theme and the text size (docs/teaching.md, "Presentation mode")."""
    projector = parse_state({**STATE, "theme": "contrast", "zoom": 2.5})
    assert projector["theme"] == "contrast" and projector["zoom"] == 2.5
    assert parse_action("zoom") == "zoom"


def test_the_room_knows_the_themes_and_text_sizes_the_page_has():
    """One list each in the page (static/js/share.js, zoom.js) and the room's check."""
    root = Path(__file__).resolve().parent.parent / "static" / "js"
    themes = re.search(r"THEMES = Object.freeze\(\[(.*?)\]\)", (root / "share.js").read_text())
    zooms = re.search(r"ZOOMS = Object.freeze\(\[(.*?)\]\)", (root / "zoom.js").read_text())
    assert themes and zooms
    assert tuple(json.loads(f"[{themes[1]}]")) == THEMES == page_themes
    assert tuple(float(z) for z in json.loads(f"[{zooms[1]}]")) == ZOOMS


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"playing": "yes"}, "state.playing"),
        ({"t": -1}, "state.t"),
        ({"t": float("inf")}, "state.t"),
        ({"t": True}, "state.t"),
        ({"t": "1"}, "state.t"),
        ({"speed": 7}, "state.speed"),
        ({"speed": True}, "state.speed"),
        ({"cursor": -2}, "state.cursor"),
        ({"cursor": 1.5}, "state.cursor"),
        ({"theme": "<b>"}, "state.theme"),
        ({"zoom": 7}, "state.zoom"),
        ({"zoom": "2"}, "state.zoom"),
        ({"zoom": True}, "state.zoom"),
        ({"zoom": None}, "state.zoom"),
        ({"token": {"lane": "html", "choice": 0, "token": 0}}, "state.token.lane"),
        ({"token": {"choice": 0, "token": 0, "extra": 1}}, "state.token"),
        ({"token": {"choice": 0}}, "state.token.token"),
        ({"tool": {"stream": 0, "choice": 0}}, "state.tool"),
        ({"tool": {"stream": 0, "choice": 0, "call": 1, "block": 2}}, "state.tool"),
        ({"tool": "first"}, "state.tool"),
    ],
)
def test_each_bad_field_is_refused_by_name(change, field):
    with pytest.raises(ProtocolError) as refused:
        parse_state({**STATE, **change})
    assert refused.value.code == "bad_message"
    assert field in refused.value.message


def test_a_state_with_a_missing_or_an_extra_field_is_refused():
    for bad in (
        {k: v for k, v in STATE.items() if k != "theme"},
        {k: v for k, v in STATE.items() if k != "zoom"},
        {**STATE, "html": "<i>"},
        [],
        None,
    ):
        with pytest.raises(ProtocolError):
            parse_state(bad)


def test_a_playing_state_moves_on_with_the_time_since_it_was_sent():
    playing = {**STATE, "playing": True, "cursor": None, "speed": 2}
    assert advance(playing, 1.5)["t"] == pytest.approx(120.5 + 3000)
    assert advance(STATE, 10) == STATE  # paused: stays
    assert advance({**playing, "speed": "max"}, 10)["t"] == 120.5


# ---------------------------------------------------------------------- the bus
# The contract every RoomBus keeps (docs/scaling.md, "Presenter rooms"): a bus on another
# transport (issue 15's Redis) adds itself to BUSES and must pass these unchanged. Its
# listeners may be called from another thread, later: `heard` is awaited, never assumed.
BUSES = {"local": LocalBus, "redis": RedisBus}


@pytest.fixture(scope="module")
def redis_server():
    yield from serving()


@pytest.fixture(params=["local", pytest.param("redis", marks=pytest.mark.integration)])
def bus(request):
    if BUSES[request.param] is LocalBus:
        yield LocalBus()
        return
    url = request.getfixturevalue("redis_server").url
    streams = RedisStreams(url, maxlen=64, ttl=60, ttl_after=60, timeout=1.0)
    opened = RedisBus(streams, stored=lambda _room: None)
    yield opened
    opened.close()
    streams.shut()


def eventually(check, seconds: float = 5.0) -> bool:
    """``check()`` once it is true, or its last answer after ``seconds`` (a bound, not a
    timing: an in-process bus answers at once)."""
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(check())


def test_the_bus_numbers_states_in_order_and_hands_them_to_listeners(bus):
    room = unique()
    heard: list[int] = []
    stop = bus.subscribe(room, lambda mirror: heard.append(mirror.seq))
    assert [bus.publish(room, "seek", STATE, 1.0).seq for _ in range(3)] == [1, 2, 3]
    assert eventually(lambda: heard == [1, 2, 3])
    stop()
    bus.publish(room, "seek", STATE, 1.0)
    assert bus.latest(room).seq == 4 and bus.latest(unique()) is None
    assert heard == [1, 2, 3], "an unsubscribed listener heard on"


def test_each_listener_hears_its_own_room_only_and_the_mirror_whole(bus):
    rooms = unique(), unique()
    heard: dict[str, list] = {room: [] for room in rooms}
    for room in rooms:
        bus.subscribe(room, heard[room].append)
    first = bus.publish(rooms[0], "tool", STATE, 12.5)
    bus.publish(rooms[1], "theme", {**STATE, "theme": "contrast"}, 13.0)
    assert eventually(lambda: all(len(h) == 1 for h in heard.values()))
    assert heard[rooms[0]] == [first]
    assert (first.room, first.seq, first.action, first.state, first.at) == (
        rooms[0],
        1,
        "tool",
        STATE,
        12.5,
    )
    assert heard[rooms[1]][0].state["theme"] == "contrast"
    assert json.loads(first.message()) == {
        "type": "mirror",
        "room": rooms[0],
        "seq": 1,
        "action": "tool",
        "state": STATE,
    }


def test_a_seeded_bus_numbers_on_from_the_store_and_never_goes_back(bus):
    room = unique()
    bus.seed(Mirror(room, 41, "pause", STATE, 0.0))
    assert bus.publish(room, "play", STATE, 1.0).seq == 42
    bus.seed(Mirror(room, 5, "pause", STATE, 0.0))  # older than what it has: ignored
    assert bus.latest(room).seq == 42


def test_a_forgotten_room_has_no_state(bus):
    room = unique()
    bus.publish(room, "seek", STATE, 0.0)
    bus.forget(room)
    assert bus.latest(room) is None


def test_the_bus_interface_is_the_one_scaling_md_documents():
    """docs/scaling.md's table names every RoomBus operation, and only those."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "scaling.md").read_text()
    section = doc[doc.index("### Presenter rooms") :]
    documented = set(re.findall(r"^\| `(\w+)\(", section, re.M))
    interface = {name for name in vars(RoomBus) if not name.startswith("_")}
    assert documented == interface
    assert all(callable(getattr(LocalBus, name)) for name in interface)


def test_the_bus_forgets_the_least_recent_rooms_nobody_follows():
    bus = LocalBus(max_rooms=2)
    bus.subscribe("followed", lambda _m: None)
    for room in ("followed", "b", "c", "d"):
        bus.publish(room, "seek", STATE, 0.0)
    assert bus.latest("followed") is not None and bus.latest("d") is not None
    assert bus.latest("b") is None


# ---------------------------------------------------------------------- admission
def test_pages_in_one_room_are_capped_by_the_admission():
    admission = Admission(10, 10, 100.0, 100, per_room=2)
    admission.join_room("r")
    admission.join_room("r")
    with pytest.raises(RateLimited) as full:
        admission.join_room("r")
    assert full.value.code == "room_full"
    admission.join_room("another")
    admission.leave_room("r")
    admission.join_room("r")
    assert admission.in_room("r") == 2


# ---------------------------------------------------------------------- the store
def test_a_room_keeps_only_its_key_hash_and_the_latest_state(store, tmp_path):
    record, key = store.create_room("demos/plain-text", "10.0.0.1", now=1000.0)
    found = store.get_room(record.id, now=1000.0)
    assert found.source == "demos/plain-text" and found.demo == "plain-text"
    other = ("y" if key[0] == "x" else "x") + key[1:]  # one character off (never the key)
    assert found.key_matches(key) and not found.key_matches(other)
    assert not found.key_matches(None) and not found.key_matches("")
    assert found.seq == 0 and found.state is None
    store.save_room_state(record.id, 2, "seek", STATE, now=1001.0)
    store.save_room_state(record.id, 1, "play", {**STATE, "t": 9.0}, now=1002.0)  # older: ignored
    again = store.get_room(record.id, now=1003.0)
    assert (again.seq, again.action, again.state, again.state_at) == (2, "seek", STATE, 1001.0)
    if (tmp_path / "store.db").exists():  # the key is nowhere in the file, its hash is
        data = (tmp_path / "store.db").read_bytes() + b"".join(
            p.read_bytes() for p in tmp_path.glob("store.db-*")
        )
        assert key.encode() not in data
        rows = sqlite3.connect(tmp_path / "store.db").execute("SELECT * FROM rooms").fetchall()
        assert key not in repr(rows) and "10.0.0.1" not in repr(rows)


def test_a_room_is_gone_after_a_day_idle_and_joins_keep_it(store):
    record, _ = store.create_room("demos/plain-text", unique(), now=0.0)
    assert store.get_room(record.id, now=ROOM_IDLE_S - 1) is not None
    store.touch_room(record.id, now=ROOM_IDLE_S - 1)
    assert store.get_room(record.id, now=2 * ROOM_IDLE_S - 2) is not None
    assert store.get_room(record.id, now=2 * ROOM_IDLE_S) is None
    assert store.purge_rooms(now=2 * ROOM_IDLE_S) >= 1
    assert store.get_room(record.id, now=ROOM_IDLE_S) is None  # the row itself is gone


def test_deleting_or_expiring_a_capture_ends_its_rooms(store):
    deleted, token = store.add(
        NewCapture(data=b"data: [DONE]\n\n", title="t", format="sse", streams=1)
    )
    doomed, _ = store.create_room(deleted.id, unique())
    assert store.delete(deleted.id, token)
    assert store.get_room(doomed.id) is None
    assert store.count_rooms(source=deleted.id) == 0
    expiring = capture(store, expires_in=10.0)
    room, _ = store.create_room(expiring, unique())
    now = store.get(expiring).expires
    assert store.get_room(room.id, now=now - 1) is not None
    assert store.get_room(room.id, now=now) is None
    assert store.purge_rooms(now=now) >= 1
    assert store.get_room(room.id, now=now - 1) is None  # purged


def test_rooms_are_counted_per_source_and_per_address(store):
    first, second = capture(store), capture(store)
    a, b = unique(), unique()
    for client in (a, a, b):
        store.create_room(first, client, now=100.0)
    store.create_room(second, a, now=100.0)
    assert store.count_rooms(source=first, now=100.0) == 3
    assert store.count_rooms(client=a, now=100.0) == 3
    assert store.count_rooms(client=b, now=100.0) == 1
    assert store.count_rooms(client=a, now=100.0 + ROOM_IDLE_S) == 0


# ---------------------------------------------------------------------- the service
@pytest.fixture
def sqlite_store(tmp_path):
    opened = open_store(f"sqlite:///{tmp_path / 'rooms.db'}")
    yield opened
    opened.close()


def service(store, bus=None, recording=lambda _c: False, **settings) -> RoomService:
    values = {"data_dir": "/tmp/unused", **settings}
    return RoomService(store, bus or LocalBus(), load(values, environ={}), recording=recording)


def present(rooms, room, key, action="seek", state=None):
    return rooms.present(
        room, {"type": "present", "key": key, "action": action, "state": state or STATE}
    )


def test_rooms_are_made_for_demos_and_stored_captures_only(sqlite_store):
    rooms = service(sqlite_store)
    assert rooms.create("demos/plain-text", "a").record.demo == "plain-text"
    captured = capture(sqlite_store)
    assert rooms.create(captured, "a").record.source == captured
    for source, code in (("demos/nope", "no_demo"), ("nope", "no_capture")):
        with pytest.raises(RoomRefused) as refused:
            rooms.create(source, "a")
        assert (refused.value.kind, refused.value.code) == ("not_found", code)
    live = service(sqlite_store, recording=lambda c: c == captured)
    with pytest.raises(RoomRefused) as refused:
        live.create(captured, "a")
    assert refused.value.code == "still_recording"


def test_rooms_per_capture_and_per_address_are_capped(sqlite_store):
    rooms = service(sqlite_store, rooms_per_capture=2, rooms_per_client=3)
    rooms.create("demos/plain-text", "a")
    rooms.create("demos/plain-text", "b")
    with pytest.raises(RoomRefused) as refused:
        rooms.create("demos/plain-text", "c")
    assert (
        refused.value.kind == "limit" and "STREAMSCOPE_ROOMS_PER_CAPTURE" in refused.value.message
    )
    rooms.create("demos/reasoning", "a")
    rooms.create("demos/n3-choices", "a")
    with pytest.raises(RoomRefused) as refused:
        rooms.create("demos/seed-docs", "a")
    assert "STREAMSCOPE_ROOMS_PER_CLIENT" in refused.value.message
    assert rooms.create("demos/seed-docs", "b")


def test_only_the_key_steers_a_room_and_a_refusal_mirrors_nothing(sqlite_store):
    bus = LocalBus()
    rooms = service(sqlite_store, bus)
    created = rooms.create("demos/plain-text", "a")
    room = created.record.id
    for key in (None, "", "forged", created.key[:-1], created.key + "x", 12):
        with pytest.raises(ProtocolError) as refused:
            present(rooms, room, key)
        assert refused.value.code == "not_presenter"
    assert bus.latest(room) is None and rooms.get(room).seq == 0
    mirror = present(rooms, room, created.key)
    assert (mirror.seq, mirror.action, mirror.state) == (1, "seek", STATE)
    assert rooms.get(room).state == STATE
    with pytest.raises(ProtocolError) as refused:
        present(rooms, "no-such-room", created.key)
    assert refused.value.code == "no_room"


def test_a_bad_state_from_the_presenter_is_refused_and_not_mirrored(sqlite_store):
    rooms = service(sqlite_store)
    created = rooms.create("demos/plain-text", "a")
    with pytest.raises(ProtocolError) as refused:
        present(rooms, created.record.id, created.key, state={**STATE, "t": "soon"})
    assert refused.value.code == "bad_message"
    with pytest.raises(ProtocolError):
        present(rooms, created.record.id, created.key, action="explode")
    assert rooms.get(created.record.id).seq == 0


def test_a_presenter_is_held_to_the_room_rate(sqlite_store):
    rooms = service(sqlite_store, room_rate=5.0)
    created = rooms.create("demos/plain-text", "a")
    sent = [present(rooms, created.record.id, created.key) for _ in range(10)]  # the burst
    assert [m.seq for m in sent] == list(range(1, 11))
    with pytest.raises(ProtocolError) as refused:
        present(rooms, created.record.id, created.key)
    assert refused.value.code == "rate_limited" and "STREAMSCOPE_ROOM_RATE" in refused.value.message
    assert rooms.get(created.record.id).seq == 10


def test_after_a_restart_the_room_keeps_its_state_and_numbers_on(sqlite_store):
    before = service(sqlite_store)
    created = before.create("demos/plain-text", "a")
    present(before, created.record.id, created.key, state={**STATE, "t": 777.0})
    present(before, created.record.id, created.key, state={**STATE, "t": 888.0})
    after = service(sqlite_store)  # a new process: a new bus, the same store
    record = after.get(created.record.id)
    latest = after.latest(record)
    assert (latest.seq, latest.state["t"]) == (2, 888.0)
    assert present(after, created.record.id, created.key).seq == 3
