"""Presenter rooms on a real server, with raw websocket clients: the API and the page, every
presenter message mirrored to everyone, a viewer's forged presenter message refused at the
protocol level, late joiners, the caps, and rooms that survive a restart."""

from __future__ import annotations

import http.client
import json
import re

import pytest

from app.demos import find

from .helpers import corpus
from .live_server import LiveServer
from .roomclient import STATE, Member, api, make_room
from .test_api import delete, upload
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("rooms-data")).start()
    yield live
    live.stop()


def page(server, path: str) -> tuple[int, dict, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        headers = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers, response.read().decode()
    finally:
        connection.close()


def test_a_room_from_the_api_with_its_viewer_and_presenter_links(server):
    status, headers, answer = api(
        server.port, "POST", "/api/rooms", {"capture": "demos/plain-text"}
    )
    assert status == 201 and headers["cache-control"] == "no-store"
    room = answer["room"]
    assert len(room) >= 22  # >= 128 random bits, URL-safe
    assert answer["viewer_url"] == f"{server.url}/r/{room}"
    viewer, key = answer["presenter_url"].split("#key=")
    assert viewer == answer["viewer_url"] and len(key) >= 32 and "?" not in answer["presenter_url"]
    status, _, meta = api(server.port, "GET", f"/api/rooms/{room}")
    assert status == 200 and meta["capture"] == "demos/plain-text" and meta["state"] is None
    assert key not in json.dumps(meta)
    status, headers, html = page(server, f"/r/{room}")
    assert status == 200 and find("plain-text").title in html
    assert 'data-testid="room-bar"' in html and 'data-source-kind="room"' in html
    assert headers["referrer-policy"] == "no-referrer"
    assert "unsafe-inline" not in headers["content-security-policy"]
    assert "script-src http://127.0.0.1:" in headers["content-security-policy"]
    assert "/static/;" in headers["content-security-policy"]
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "no inline script"
    assert key not in html


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "bad_request"),
        ({"capture": 3}, 400, "bad_request"),
        ({"capture": "demos/nope"}, 404, "no_demo"),
        ({"capture": "no-such-capture"}, 404, "no_capture"),
    ],
)
def test_a_room_for_nothing_is_refused_with_why(server, body, status, code):
    got, _, answer = api(server.port, "POST", "/api/rooms", body)
    assert (got, answer["error"]["code"]) == (status, code)


def test_unknown_rooms_are_not_found(server):
    assert api(server.port, "GET", "/api/rooms/nope")[0] == 404
    assert page(server, "/r/nope")[0] == 404
    ws = Member(server.port, "nope")
    assert ws.error["code"] == "no_room"
    ws.close()


def test_every_presenter_action_reaches_every_viewer_and_a_forged_one_reaches_none(server):
    room = make_room(server.port)
    presenter = Member(server.port, room["room"], room["key"])
    viewers = [Member(server.port, room["room"]) for _ in range(3)]
    try:
        assert presenter.room["presenter"] is True
        assert [v.room["presenter"] for v in viewers] == [False, False, False]
        assert [m["type"] for m in viewers[0].joined][:3] == ["hello", "room", "capture"]
        assert viewers[0].joined[-1] == {"type": "end", "reason": "complete"}
        assert viewers[0].room["source"] == {"demo": "tool-calls-parallel"}
        assert viewers[0].room["state"] is None and viewers[0].room["seq"] == 0
        actions = [
            ("seek", {**STATE, "t": 300.0, "cursor": 8}),
            ("play", {**STATE, "playing": True, "cursor": None}),
            ("speed", {**STATE, "playing": True, "cursor": None, "speed": 2}),
            ("pause", {**STATE, "speed": 2, "cursor": 9}),
            ("step", {**STATE, "speed": 2, "cursor": 11}),
            ("token", {**STATE, "token": {"lane": "text", "choice": 0, "token": 0}}),
            ("tool", {**STATE, "tool": {"stream": 0, "choice": 0, "call": 1}}),
            ("theme", {**STATE, "theme": "dark"}),
            ("theme", {**STATE, "theme": "contrast"}),
            ("zoom", {**STATE, "theme": "contrast", "zoom": 2}),
        ]
        for seq, (action, state) in enumerate(actions, start=1):
            presenter.present(state, action)
            for member in [*viewers, presenter]:
                mirror = member.mirror()
                assert mirror == {
                    "type": "mirror",
                    "room": room["room"],
                    "seq": seq,
                    "action": action,
                    "state": {**state, "t": float(state["t"])},
                }
        # A viewer forges presenter messages: without a key, with a wrong one, with the
        # key of another room. Each is a protocol error to it, and nobody sees a thing.
        other = make_room(server.port)
        forger = viewers[0]
        for key in (None, "guessed-key", other["key"], room["key"][:-2]):
            forger.present({**STATE, "t": 9999.0}, "seek", key=key)
            answer = forger.next(5)
            assert answer["type"] == "error" and answer["code"] == "not_presenter", answer
        for member in [*viewers[1:], presenter]:
            assert member.messages(1.0) == []
        status, _, meta = api(server.port, "GET", f"/api/rooms/{room['room']}")
        assert status == 200 and meta["seq"] == len(actions) and meta["state"]["t"] != 9999.0
        # The presenter goes on, numbered with no gap: nothing forged was numbered.
        presenter.present({**STATE, "t": 42.0})
        assert viewers[1].mirror()["seq"] == len(actions) + 1
    finally:
        for member in [presenter, *viewers]:
            member.close()


def test_a_malformed_presenter_state_is_refused_and_not_mirrored(server):
    room = make_room(server.port)
    presenter = Member(server.port, room["room"], room["key"])
    viewer = Member(server.port, room["room"])
    try:
        presenter.present({**STATE, "theme": "<script>"})
        answer = presenter.next(5)
        assert answer["type"] == "error" and answer["code"] == "bad_message"
        assert "state.theme" in answer["message"]
        presenter.ws.send("{not json")
        assert presenter.next(5)["code"] == "bad_message"
        presenter.ws.send(json.dumps({"type": "start", "base_url": "http://x"}))
        assert presenter.next(5)["code"] == "bad_message"
        assert viewer.messages(1.0) == []
    finally:
        presenter.close()
        viewer.close()


def test_a_replay_connection_cannot_present(server):
    room = make_room(server.port)
    ws = connect(server.port)
    try:
        ws.send(json.dumps({"type": "open", "source": {"demo": "plain-text"}}))
        while json.loads(ws.receive(timeout=10))["type"] != "end":
            pass
        ws.send(
            json.dumps({"type": "present", "key": room["key"], "action": "seek", "state": STATE})
        )
        answer = json.loads(ws.receive(timeout=5))
        assert answer["type"] == "error" and answer["code"] == "not_in_room"
    finally:
        ws.close()


def test_a_late_joiner_lands_in_the_current_state(server):
    room = make_room(server.port)
    presenter = Member(server.port, room["room"], room["key"])
    try:
        presenter.present({**STATE, "t": 1200.0, "cursor": 14, "theme": "light"}, "step")
        presenter.mirror()
        late = Member(server.port, room["room"])
        assert (late.room["seq"], late.room["action"]) == (1, "step")
        assert late.room["state"] == {**STATE, "t": 1200.0, "cursor": 14, "theme": "light"}
        late.close()
        presenter.present(
            {**STATE, "playing": True, "cursor": None, "t": 100.0, "speed": 2}, "play"
        )
        presenter.mirror()
        later = Member(server.port, room["room"])
        # the presenter has played on meanwhile, at 2x: the joiner starts where they are now
        assert later.room["state"]["playing"] is True
        assert later.room["state"]["t"] > 100.0
        later.close()
    finally:
        presenter.close()


def test_a_room_ends_with_its_capture(server):
    status, answer = upload(server, corpus("openai-gpt4o-tool-parallel.sse"))
    assert status == 201
    room = make_room(server.port, answer["id"])
    assert page(server, f"/r/{room['room']}")[0] == 200
    assert delete(server, answer) == 204
    assert api(server.port, "GET", f"/api/rooms/{room['room']}")[0] == 404
    assert page(server, f"/r/{room['room']}")[0] == 404
    gone = Member(server.port, room["room"], room["key"])
    assert gone.error["code"] == "no_room"
    gone.close()


def test_rooms_survive_a_restart_with_their_state_and_key(tmp_path):
    first = LiveServer(tmp_path).start()
    try:
        room = make_room(first.port, "demos/n3-choices")
        presenter = Member(first.port, room["room"], room["key"])
        presenter.present({**STATE, "t": 640.0, "cursor": 12, "theme": "dark"}, "step")
        presenter.mirror()
        presenter.close()
    finally:
        first.stop()
    second = LiveServer(tmp_path).start()  # a new process on the same store
    try:
        status, _, meta = api(second.port, "GET", f"/api/rooms/{room['room']}")
        assert status == 200 and meta["seq"] == 1 and meta["state"]["cursor"] == 12
        viewer = Member(second.port, room["room"])
        assert viewer.room["state"] == {**STATE, "t": 640.0, "cursor": 12, "theme": "dark"}
        presenter = Member(second.port, room["room"], room["key"])
        assert presenter.room["presenter"] is True
        presenter.present({**STATE, "t": 10.0}, "seek")
        assert viewer.mirror()["seq"] == 2
        presenter.close()
        viewer.close()
        log = second.log() + first.log()
        assert room["key"] not in log, "the presenter key reached a log"
    finally:
        second.stop()


def test_what_a_room_may_cost_is_capped(tmp_path):
    env = {
        "STREAMSCOPE_ROOM_VIEWERS": "2",
        "STREAMSCOPE_ROOMS_PER_CAPTURE": "1",
        "STREAMSCOPE_ROOM_RATE": "2",
    }
    with LiveServer(tmp_path, env=env) as server:
        room = make_room(server.port, "demos/plain-text")
        status, _, answer = api(server.port, "POST", "/api/rooms", {"capture": "demos/plain-text"})
        assert status == 429 and answer["error"]["code"] == "too_many_rooms"
        presenter = Member(server.port, room["room"], room["key"])
        viewer = Member(server.port, room["room"])
        full = Member(server.port, room["room"])
        assert full.error["code"] == "room_full"
        full.close()
        for i in range(10):  # a viewer's flood of forged presenter messages: the burst is
            viewer.present({**STATE, "t": float(i)}, key="forged")  # checked, the rest not read
        codes = [m["code"] for m in viewer.messages(1.0) if m["type"] == "error"]
        assert len(codes) == 10 and set(codes) == {"not_presenter", "rate_limited"}, codes
        assert 4 <= codes.count("not_presenter") <= 6, codes
        # ...and it cost the presenter nothing: the room's own burst is whole.
        for i in range(10):  # a flood: the burst (twice the rate) goes through, the rest not
            presenter.present({**STATE, "t": float(i)})
        got = presenter.messages(1.5)
        refused = [m for m in got if m["type"] == "error"]
        mirrored = [m for m in viewer.messages(0.5) if m["type"] == "mirror"]
        assert refused and all(m["code"] == "rate_limited" for m in refused)
        assert 4 <= len(mirrored) <= 6 and len(mirrored) + len(refused) == 10
        viewer.close()
        again = Member(server.port, room["room"])  # a place came free
        assert again.error is None
        again.close()
        presenter.close()
