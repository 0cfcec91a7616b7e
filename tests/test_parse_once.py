"""An upload is read once, summarized once, and its document built once (issue 27, section 5):
the upload reads it and caches it as the stored bytes read; its answer and every
``GET /api/captures/<id>`` share one set of stream summaries; the document is built with the
upload and its digest kept with the capture (storage/documents.py), so opening ``/c/<id>``
builds nothing to learn it. Before, the metadata summarized every stream again, and the first
page open built the whole document for its digest."""

from __future__ import annotations

import sys

import pytest

from app.web import create_app

from .helpers import corpus

HOST = {"Host": "127.0.0.1:5000"}


@pytest.fixture
def app(tmp_path):
    return create_app({"data_dir": str(tmp_path)})


def counted(monkeypatch, module_name: str, name: str) -> list[int]:
    calls: list[int] = []
    module = sys.modules[module_name]
    real = getattr(module, name)

    def count(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, count)
    return calls


def test_one_upload_is_read_summarized_and_built_once(app, monkeypatch):
    reads = counted(monkeypatch, "app.captures.ingest", "read_capture")
    reads += counted(monkeypatch, "app.services.sources", "read_capture")
    summaries = counted(monkeypatch, "app.services.uploads", "summarize")
    builds = counted(monkeypatch, "app.web.http.timeline", "write_document")
    client = app.test_client()
    data = corpus("openai-gpt4o-tool-parallel.sse")
    answer = client.post(
        "/api/captures?format=sse",
        data=data,
        headers={**HOST, "Content-Type": "text/event-stream"},
    )
    assert answer.status_code == 201
    capture_id = answer.get_json()["id"]
    assert (len(reads), len(summaries), len(builds)) == (1, 1, 1)

    page = client.get(f"/c/{capture_id}", headers=HOST, buffered=True)
    assert page.status_code == 200 and b"data-timeline-url=" in page.data
    meta = client.get(f"/api/captures/{capture_id}", headers=HOST, buffered=True).get_json()
    timeline = client.get(meta["timeline_url"], headers=HOST, buffered=True)
    raw = client.get(
        f"/api/captures/{capture_id}/timeline/raw?stream=0&start=0&count=5",
        headers=HOST,
        buffered=True,
    )
    assert timeline.status_code == raw.status_code == 200
    assert meta["streams"] == answer.get_json()["streams"]
    assert (len(reads), len(summaries), len(builds)) == (1, 1, 1)
