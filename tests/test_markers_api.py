"""Issue 14, markers through the REST API, and the timeline as one cacheable document
(docs/teaching.md, docs/protocol.md), against a real server and a real SQLite file."""

from __future__ import annotations

import gzip
import json
import sqlite3
import time

import pytest

from app.protocol import VERSION

from .helpers import corpus
from .live_server import LiveServer
from .test_api import delete, request, upload

pytestmark = pytest.mark.integration  # starts real servers on loopback


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("markers-data"), env={"STREAMSCOPE_MAX_MARKERS": "3"}
    ).start()
    yield live
    live.stop()


def post_marker(server, answer: dict, marker, token: str | None = "owner") -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-Delete-Token"] = answer["delete_token"] if token == "owner" else token
    body = marker if isinstance(marker, bytes) else json.dumps(marker).encode()
    status, _, data = request(
        server, "POST", f"/api/captures/{answer['id']}/markers", body, headers
    )
    return status, json.loads(data) if data else {}


def markers_of(server, capture_id: str) -> tuple[int, dict]:
    status, _, data = request(server, "GET", f"/api/captures/{capture_id}/markers")
    return status, json.loads(data)


def test_the_owner_adds_lists_and_removes_markers(server):
    _, answer = upload(server, corpus("openai-gpt4o-tool-parallel.sse"))
    status, first = post_marker(server, answer, {"t": 0.5, "label": "Tool calls", "note": "two"})
    assert status == 201, first
    assert first["label"] == "Tool calls" and first["note"] == "two" and first["t"] == 0.5
    status, second = post_marker(server, answer, {"event": 3, "label": "  Third event  "})
    assert status == 201 and second["event"] == 3 and second["stream"] == 0
    assert second["label"] == "Third event" and second["note"] == ""
    assert first["id"] != second["id"]
    status, listed = markers_of(server, answer["id"])
    assert status == 200
    assert [m["id"] for m in listed["markers"]] == [first["id"], second["id"]]
    path = f"/api/captures/{answer['id']}/markers/{first['id']}"
    assert request(server, "DELETE", path, headers={"X-Delete-Token": "wrong"})[0] == 403
    assert (
        request(server, "DELETE", path, headers={"X-Delete-Token": answer["delete_token"]})[0]
        == 204
    )
    assert (
        request(server, "DELETE", path, headers={"X-Delete-Token": answer["delete_token"]})[0]
        == 404
    )
    assert [m["id"] for m in markers_of(server, answer["id"])[1]["markers"]] == [second["id"]]


def test_only_the_owner_writes_markers(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"))
    for token in (None, "wrong"):
        status, body = post_marker(server, answer, {"t": 0, "label": "x"}, token=token)
        assert status == 403 and body["error"]["code"] == "bad_token"
    assert markers_of(server, answer["id"])[1] == {"markers": []}


@pytest.mark.parametrize(
    ("marker", "field"),
    [
        ({"label": "no moment"}, "t"),
        ({"t": 1, "event": 2, "label": "both"}, "t"),
        ({"t": -1, "label": "negative"}, "t"),
        ({"t": "1", "label": "text"}, "t"),
        ({"t": True, "label": "bool"}, "t"),
        ({"t": 1}, "label"),
        ({"t": 1, "label": "   "}, "label"),
        ({"t": 1, "label": "x" * 81}, "label"),
        ({"t": 1, "label": "ok", "note": "n" * 1001}, "note"),
        ({"t": 1, "label": "ok", "note": 5}, "note"),
        ({"event": 100000, "label": "past the end"}, "event"),
        ({"event": 1, "stream": 4, "label": "no such stream"}, "stream"),
        ({"t": 1, "stream": 0, "label": "stream with t"}, "stream"),
        ({"t": 1, "label": "ok", "colour": "red"}, "colour"),
        ([1, 2], "body"),
        (b"{not json", "body"),
    ],
)
def test_bad_markers_get_an_error_naming_the_field(server, marker, field):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"))
    status, body = post_marker(server, answer, marker)
    assert status == 400, body
    assert body["error"]["code"] == "bad_marker" and body["error"]["field"] == field
    assert body["error"]["message"]


def test_markers_are_capped_in_count_and_body_size(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"))
    for i in range(3):  # the server's max_markers
        assert post_marker(server, answer, {"t": i, "label": f"m{i}"})[0] == 201
    status, body = post_marker(server, answer, {"t": 9, "label": "one too many"})
    assert status == 400 and body["error"]["code"] == "too_many_markers"
    status, body = post_marker(
        server, answer, json.dumps({"t": 1, "label": "x", "note": "n" * 20000}).encode()
    )
    assert status == 413 and body["error"]["code"] == "too_large"
    assert len(markers_of(server, answer["id"])[1]["markers"]) == 3


def test_markers_go_with_their_capture(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"), expires="1d")
    assert post_marker(server, answer, {"t": 0, "label": "kept"})[0] == 201
    _, other = upload(server, corpus("openai-gpt4o-length.sse"))
    assert post_marker(server, other, {"t": 0, "label": "deleted with it"})[0] == 201
    assert delete(server, other) == 204
    status, body = markers_of(server, other["id"])
    assert status == 404 and body["error"]["code"] == "no_capture"
    with sqlite3.connect(server.data_dir / "streamscope.db") as db:
        assert db.execute(
            "SELECT COUNT(*) FROM capture_markers WHERE capture_id = ?", (other["id"],)
        ).fetchone() == (0,)
        db.execute("UPDATE captures SET expires = ? WHERE id = ?", (time.time() - 1, answer["id"]))
    assert markers_of(server, answer["id"])[0] == 404
    assert post_marker(server, answer, {"t": 0, "label": "late"})[0] == 404


# ---------------------------------------------------------------------- the timeline document
def get(server, path: str, **headers: str):
    return request(server, "GET", path, headers=headers)


def test_the_timeline_document_holds_the_replay_messages(server):
    _, answer = upload(server, corpus("openai-gpt4o-tool-parallel.sse"), title="Doc")
    status, headers, body = get(server, f"/api/captures/{answer['id']}/timeline")
    assert status == 200 and headers["content-type"] == "application/json"
    assert "content-encoding" not in headers  # asked for no compression
    doc = json.loads(body)
    assert doc["version"] == VERSION and "raw" not in doc  # the protocol's version
    types = [m["type"] for m in doc["messages"]]
    assert types[0] == "capture" and types[1] == "raw_meta"
    assert types[-3:] == ["summary", "findings", "end"]
    assert set(types) == {"capture", "raw_meta", "events", "summary", "findings", "end"}
    assert doc["messages"][0]["title"] == "Doc"
    events = [e for m in doc["messages"] if m["type"] == "events" for e in m["events"]]
    assert any(e["kind"] == "tool_start" for e in events)
    status, _, body = get(server, f"/api/captures/{answer['id']}/timeline?raw=1")
    with_raw = json.loads(body)
    assert with_raw["messages"] == doc["messages"]
    items = [item for m in with_raw["raw"] for item in m["items"]]
    assert len(items) == doc["messages"][1]["line"].__len__()
    assert items[0]["text"].startswith("data: {")


def test_the_timeline_is_gzipped_with_a_strong_etag_and_304(server):
    _, answer = upload(server, corpus("openai-gpt4o-tool-parallel.sse"))
    path = f"/api/captures/{answer['id']}/timeline"
    _, plain_headers, plain = get(server, path)
    status, headers, body = get(server, path, **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == plain and len(body) < len(plain) / 3
    assert headers["vary"] == "Accept-Encoding"
    etag = headers["etag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    assert etag != plain_headers["etag"]  # two representations, two strong validators
    assert headers["cache-control"] == "public, no-cache"
    status, again, body = get(server, path, **{"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert status == 304 and body == b"" and again["etag"] == etag
    # The versioned URL from the metadata is immutable.
    _, _, meta = get(server, f"/api/captures/{answer['id']}")
    url = json.loads(meta)["timeline_url"]
    assert url.startswith(path + "?v=")
    status, headers, body = get(server, url, **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert headers["etag"] == etag


def test_a_rename_gives_a_new_version_and_the_old_one_stops_being_immutable(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"), title="Before")
    _, _, meta = get(server, f"/api/captures/{answer['id']}")
    old_url = json.loads(meta)["timeline_url"]
    status, _, _ = request(
        server,
        "PATCH",
        f"/api/captures/{answer['id']}",
        json.dumps({"title": "After"}).encode(),
        {"Content-Type": "application/json", "X-Delete-Token": answer["delete_token"]},
    )
    assert status == 200
    _, _, meta = get(server, f"/api/captures/{answer['id']}")
    new_url = json.loads(meta)["timeline_url"]
    assert new_url != old_url
    _, headers, body = get(server, old_url)
    assert headers["cache-control"] == "public, no-cache"
    assert json.loads(body)["messages"][0]["title"] == "After"
    _, headers, _ = get(server, new_url)
    assert headers["cache-control"] == "public, max-age=31536000, immutable"


def test_deleted_or_expired_timelines_404_in_the_usual_shape(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"), expires="1d")
    path = f"/api/captures/{answer['id']}/timeline"
    assert get(server, path)[0] == 200
    with sqlite3.connect(server.data_dir / "streamscope.db") as db:
        db.execute("UPDATE captures SET expires = ? WHERE id = ?", (time.time() - 1, answer["id"]))
    status, _, body = get(server, path)
    assert status == 404 and json.loads(body)["error"]["code"] == "no_capture"
    _, other = upload(server, corpus("openai-gpt4o-length.sse"))
    path = f"/api/captures/{other['id']}/timeline"
    assert get(server, path)[0] == 200  # built and cached
    assert delete(server, other) == 204
    status, _, body = get(server, path, **{"Accept-Encoding": "gzip"})
    assert status == 404 and json.loads(body)["error"]["code"] == "no_capture"


def test_demo_timelines_are_served_too(server):
    status, headers, body = get(server, "/api/demos/tool-calls-parallel/timeline")
    assert status == 200 and headers["cache-control"] == "public, no-cache"
    doc = json.loads(body)
    assert doc["messages"][0]["source"] == {
        "kind": "demo",
        "name": "tool-calls-parallel",
        "description": doc["messages"][0]["source"]["description"],
    }
    digest = headers["etag"].strip('"')
    _, headers, _ = get(server, f"/api/demos/tool-calls-parallel/timeline?v={digest}")
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    status, _, body = get(server, "/api/demos/nope/timeline")
    assert status == 404 and json.loads(body)["error"]["code"] == "no_demo"
