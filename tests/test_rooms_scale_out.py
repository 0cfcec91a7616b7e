"""Presenter rooms across two ``streamscope serve --production`` processes sharing one
PostgreSQL and one Redis (docs/scaling.md, "Presenter rooms"), with raw websocket clients: a
presenter on one process, viewers on the other get every state in order; Redis killed
(SIGKILL) mid-session and started again: the presenter's actions are still saved and mirrored
back to it, the viewers are told, follow through the store, and end at the presenter's latest
state; once Redis is back they are told so and follow live again."""

from __future__ import annotations

import time

import pytest

from . import test_scale_out as scale_out
from .roomclient import STATE, Member, api, make_room

pytestmark = pytest.mark.integration  # starts real servers on loopback

backends = scale_out.backends  # one PostgreSQL and one Redis for this module
pair = scale_out.pair  # two servers on them


def actions(count: int, start: float = 0.0) -> list[tuple[str, dict]]:
    return [("seek", {**STATE, "t": start + 10.0 * i, "cursor": i}) for i in range(count)]


def status_of(member: Member, state: str, timeout: float = 20) -> list[dict]:
    """Messages up to and including a ``status`` of ``state`` (bounded; fails without one)."""
    seen: list[dict] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        found = member.next(left)
        if found is None:
            continue
        seen.append(found)
        if found["type"] == "status" and found["state"] == state:
            return seen
    raise AssertionError(f"no status {state!r} came; had {[m['type'] for m in seen]}")


def mirrors_until(member: Member, seq: int, timeout: float = 20) -> list[dict]:
    """Mirrors (and status messages) until the mirror numbered ``seq``."""
    seen: list[dict] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        found = member.next(left)
        if found is None:
            continue
        seen.append(found)
        if found["type"] == "mirror" and found["seq"] >= seq:
            return seen
    raise AssertionError(f"mirror {seq} never came; had {seen[-3:]}")


def numbers(messages: list[dict]) -> list[int]:
    return [m["seq"] for m in messages if m["type"] == "mirror"]


def test_a_presenter_on_one_process_is_followed_on_the_other(pair):
    a, b = pair
    room = make_room(a.port)
    presenter = Member(a.port, room["room"], room["key"])
    viewers = [Member(b.port, room["room"]) for _ in range(3)]
    try:
        assert [v.room["presenter"] for v in viewers] == [False] * 3
        sent = actions(12)
        for action, state in sent:
            presenter.present(state, action)
            assert presenter.mirror()["state"]["t"] == state["t"]  # acknowledged, in turn
        for viewer in viewers:
            got = [viewer.mirror() for _ in sent]
            assert [m["seq"] for m in got] == list(range(1, len(sent) + 1))
            assert [(m["action"], m["state"]) for m in got] == [
                (action, {**state, "t": float(state["t"])}) for action, state in sent
            ]
        late = Member(b.port, room["room"])  # joins on the other process: the latest state
        assert late.room["seq"] == len(sent) and late.room["state"]["cursor"] == len(sent) - 1
        late.close()
    finally:
        for member in [presenter, *viewers]:
            member.close()


def test_redis_killed_mid_session_viewers_are_told_and_end_at_the_latest_state(pair, backends):
    a, b = pair
    _postgres, redis_server = backends
    room = make_room(a.port)
    presenter = Member(a.port, room["room"], room["key"])
    viewers = [Member(b.port, room["room"]) for _ in range(2)]
    try:
        for action, state in actions(2):
            presenter.present(state, action)
            presenter.mirror()
        for viewer in viewers:
            assert numbers(mirrors_until(viewer, 2)) == [1, 2]

        redis_server.kill()
        for viewer in viewers:
            status_of(viewer, "fallback")
        away = actions(3, start=500.0)
        for action, state in away:  # saved and acknowledged while Redis is away
            presenter.present(state, action)
            mirror = mirrors_until(presenter, 0)[-1]
            assert mirror["state"]["t"] == state["t"], mirror
        status, _, meta = api(a.port, "GET", f"/api/rooms/{room['room']}")
        assert status == 200 and meta["seq"] == 5 and meta["state"]["t"] == away[-1][1]["t"]
        for viewer in viewers:  # followed through the store meanwhile
            last = mirrors_until(viewer, 5)[-1]
            assert last["state"]["t"] == away[-1][1]["t"]
        joiner = Member(b.port, room["room"])  # joins while Redis is away: the store's state
        assert joiner.room["seq"] == 5
        status_of(joiner, "fallback")

        redis_server.start()
        for member in [*viewers, joiner]:
            status_of(member, "live")
        presenter.present({**STATE, "t": 999.0}, "seek")
        for member in [*viewers, joiner]:
            after = mirrors_until(member, 6)
            assert numbers(after) == [6] and after[-1]["state"]["t"] == 999.0
        joiner.close()
    finally:
        if redis_server.process is None or redis_server.process.poll() is not None:
            redis_server.start()
        for member in [presenter, *viewers]:
            member.close()
