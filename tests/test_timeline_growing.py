"""Issue 14 (the timeline document): a live run's recording that is still growing is never
served as immutable; once its end line is stored, its current version is (docs/protocol.md,
"The timeline document")."""

from __future__ import annotations

from app.captures.timed import end_line, header_line, read_line, response_line
from app.storage import NewCapture
from app.web import create_app
from app.web.context import services_of

HOST = {"Host": "127.0.0.1:5000"}


def chunk(text: str) -> bytes:
    return f'data: {{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}\n\n'.encode()


def test_a_growing_recording_is_never_immutable_and_its_finished_version_is(tmp_path):
    app = create_app({"data_dir": str(tmp_path)})
    store = services_of(app).store
    client = app.test_client()
    head = header_line(created="2026-11-30T00:00:00Z", source={"url": "http://127.0.0.1:9/v1"})
    record, _ = store.add(
        NewCapture(
            data=head + response_line(5.0, 200, "text/event-stream") + read_line(10.0, chunk("Hi")),
            title="live run",
            format="timed",
            streams=1,
            source="live",
        )
    )
    meta = client.get(f"/api/captures/{record.id}", headers=HOST, buffered=True).get_json()
    growing = client.get(meta["timeline_url"], headers=HOST, buffered=True)
    assert growing.status_code == 200
    assert growing.headers["Cache-Control"] == "no-cache"
    findings = [m for m in growing.get_json()["messages"] if m["type"] == "findings"]
    assert [m["final"] for m in findings] == [False]  # a growing stream's findings so far
    store.append(record.id, read_line(20.0, chunk(" there")) + end_line(30.0, "done"))
    meta = client.get(f"/api/captures/{record.id}", headers=HOST, buffered=True).get_json()
    finished = client.get(meta["timeline_url"], headers=HOST, buffered=True)
    assert finished.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert finished.headers["ETag"] != growing.headers["ETag"]
    texts = [
        e["text"]
        for m in finished.get_json()["messages"]
        if m["type"] == "events"
        for e in m["events"]
        if e["kind"] == "text"
    ]
    assert "".join(texts) == "Hi there"
    findings = [m for m in finished.get_json()["messages"] if m["type"] == "findings"]
    assert [m["final"] for m in findings] == [True]


def test_an_upload_without_an_end_line_is_finished(tmp_path):
    app = create_app({"data_dir": str(tmp_path)})
    store = services_of(app).store
    head = header_line(created="2026-11-30T00:00:00Z")
    record, _ = store.add(
        NewCapture(data=head + read_line(10.0, chunk("Hi")), title="t", format="timed", streams=1)
    )
    client = app.test_client()
    meta = client.get(f"/api/captures/{record.id}", headers=HOST, buffered=True).get_json()
    assert client.get(meta["timeline_url"], headers=HOST, buffered=True).headers[
        "Cache-Control"
    ] == ("public, max-age=31536000, immutable")
