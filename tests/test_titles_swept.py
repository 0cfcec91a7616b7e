"""Titles, marker labels and notes are swept as the capture is (issue 26, "also harden";
docs/security.md, "Secrets in uploads"): a title is typed, or taken from a file's name
(``sk-proj-....sse``), and shown to everyone with the link, in the page, the metadata, the
export and the markers. Before, each was stored and shown as it came."""

from __future__ import annotations

import pytest

from app.web import create_app

HOST = {"Host": "127.0.0.1:5000"}
KEY = "sk-proj-TITLEcanary0123456789abcdef"
CAPTURE = b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'


@pytest.fixture
def client(tmp_path):
    return create_app({"data_dir": str(tmp_path)}).test_client()


def upload(client, **headers: str) -> dict:
    answer = client.post(
        "/api/captures?format=sse",
        data=CAPTURE,
        headers={**HOST, "Content-Type": "text/event-stream", **headers},
    )
    assert answer.status_code == 201, answer.data
    return answer.get_json()


def test_a_title_taken_from_the_file_name_is_swept(client):
    made = upload(client, **{"X-Filename": f"{KEY}.sse"})
    assert KEY not in made["title"] and "[redacted]" in made["title"]
    assert {"kind": "openai project key", "count": 1} in made["redacted"]
    meta = client.get(f"/api/captures/{made['id']}", headers=HOST).get_json()
    assert KEY not in str(meta)


def test_a_typed_title_is_swept_at_upload_and_at_rename(client):
    answer = client.post(
        f"/api/captures?format=sse&title=mine%20{KEY}",
        data=CAPTURE,
        headers={**HOST, "Content-Type": "text/event-stream"},
    )
    made = answer.get_json()
    assert made["title"] == "mine [redacted]"
    renamed = client.patch(
        f"/api/captures/{made['id']}",
        json={"title": f"Bearer {KEY[3:]}"},
        headers={**HOST, "X-Delete-Token": made["delete_token"]},
    )
    assert renamed.status_code == 200 and renamed.get_json()["title"] == "[redacted]"


def test_marker_labels_and_notes_are_swept(client):
    made = upload(client)
    answer = client.post(
        f"/api/captures/{made['id']}/markers",
        json={"t": 0.1, "label": f"key {KEY}", "note": '{"api_key": "plain-note-secret"}'},
        headers={**HOST, "X-Delete-Token": made["delete_token"]},
    )
    assert answer.status_code == 201, answer.data
    listed = client.get(f"/api/captures/{made['id']}/markers", headers=HOST).get_json()
    text = str(listed)
    assert KEY not in text and "plain-note-secret" not in text
    assert "key [redacted]" in text
