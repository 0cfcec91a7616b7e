"""Issue 15, replay as cacheable HTTP: the timeline document's content codings (brotli and gzip
on Accept-Encoding, each compressed once per process), conditional requests across a range of
headers, raw texts a page at a time, and the player page pointing at the immutable URL only
for a capture that can no longer grow (docs/protocol.md, "The timeline document")."""

from __future__ import annotations

import gzip
import json
import threading

import brotli
import pytest

from app.captures.timed import header_line, read_line, response_line
from app.protocol import VERSION
from app.storage import NewCapture
from app.web import codings, create_app
from app.web.context import services_of
from app.web.http import timeline

from .helpers import corpus

HOST = {"Host": "127.0.0.1:5000"}
IMMUTABLE = "public, max-age=31536000, immutable"
TOKENS: dict[str, str] = {}


@pytest.fixture
def app(tmp_path):
    return create_app({"data_dir": str(tmp_path)})


def stored(app, name: str = "openai-gpt4o-content-logprobs.sse") -> str:
    record, token = services_of(app).store.add(
        NewCapture(data=corpus(name), title="t", format="sse", streams=1)
    )
    TOKENS[record.id] = token
    return record.id


def versioned(client, capture_id: str) -> str:
    return client.get(f"/api/captures/{capture_id}", headers=HOST).get_json()["timeline_url"]


def get(client, url: str, **headers: str):
    return client.get(url, headers={**HOST, **headers}, buffered=True)


def body_of(response) -> bytes:
    coding = response.headers.get("Content-Encoding")
    if coding == "br":
        return brotli.decompress(response.data)
    if coding == "gzip":
        return gzip.decompress(response.data)
    assert coding is None
    return response.data


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("gzip, deflate, br, zstd", "br"),  # what Chromium sends
        ("gzip, deflate", "gzip"),
        ("br", "br"),
        ("br;q=0.5, gzip", "gzip"),
        ("gzip;q=0.2, br;q=0.9", "br"),
        ("*", "br"),
        ("br;q=0, *;q=0.1", "gzip"),
        ("br;q=0, gzip;q=0", None),
        ("identity", None),
        ("", None),
    ],
)
def test_accept_encoding_picks_the_form_and_every_form_is_the_same_document(app, accept, coding):
    client = app.test_client()
    url = versioned(client, stored(app))
    plain = get(client, url)
    response = get(client, url, **{"Accept-Encoding": accept})
    assert response.status_code == 200
    assert response.headers.get("Content-Encoding") == coding
    assert response.headers["Vary"] == "Accept-Encoding"
    assert response.headers["Cache-Control"] == IMMUTABLE
    assert body_of(response) == plain.data
    digest = url.rsplit("v=", 1)[1]
    suffix = {"br": ".br", "gzip": ".gz", None: ""}[coding]
    assert response.headers["ETag"] == f'"{digest}{suffix}"'
    if coding:
        assert len(response.data) < len(plain.data) / 2


@pytest.mark.parametrize(
    ("if_none_match", "status"),
    [
        ("{etag}", 304),
        ('"other", {etag}', 304),
        ("W/{etag}", 304),  # If-None-Match compares weakly (RFC 9110 section 13.1.2)
        ("*", 304),
        ('"other"', 200),
        ("{plain}", 200),  # the identity form's tag does not match the brotli form
        ("{gzip}", 200),
    ],
)
def test_conditional_requests(app, if_none_match, status):
    client = app.test_client()
    url = versioned(client, stored(app))
    digest = url.rsplit("v=", 1)[1]
    tags = {"etag": f'"{digest}.br"', "plain": f'"{digest}"', "gzip": f'"{digest}.gz"'}
    response = get(
        client, url, **{"Accept-Encoding": "br", "If-None-Match": if_none_match.format(**tags)}
    )
    assert response.status_code == status
    assert response.headers["ETag"] == tags["etag"]
    assert response.headers["Cache-Control"] == IMMUTABLE
    assert response.headers["Vary"] == "Accept-Encoding"
    if status == 304:
        assert response.data == b""
    else:
        # protocol version 3 (issue 27, section 3)
        assert json.loads(brotli.decompress(response.data))["version"] == VERSION


def test_a_document_is_built_and_each_form_compressed_once_however_many_ask_at_once(
    app, monkeypatch
):
    made: list[str] = []
    real = codings.compress_stream

    def counting(source, coding: str, out) -> None:
        made.append(coding)
        real(source, coding, out)

    monkeypatch.setattr(timeline, "compress_stream", counting)
    # Large enough that reading it takes a while: the viewers arrive while it is being read.
    chunk = 'data: {{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":"w{} "}}}}]}}\n\n'
    data = "".join(chunk.format(i) for i in range(20_000)).encode() + b"data: [DONE]\n\n"
    record, _ = services_of(app).store.add(
        NewCapture(data=data, title="big", format="sse", streams=1)
    )
    capture_id = record.id
    url = f"/api/captures/{capture_id}/timeline"
    answers: list[tuple[int, str, bytes]] = []
    start = threading.Barrier(24)

    def viewer(accept: str) -> None:
        client = app.test_client()
        start.wait()
        response = get(client, url, **{"Accept-Encoding": accept})
        answers.append((response.status_code, response.headers["ETag"], body_of(response)))

    threads = [
        threading.Thread(target=viewer, args=("gzip, br" if i % 2 else "gzip",)) for i in range(24)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == 24 and {a[0] for a in answers} == {200}
    assert len({a[2] for a in answers}) == 1  # one document, however it was encoded
    assert sorted(made) == ["br", "gzip"]
    for accept in ("br", "gzip", "gzip, br"):
        assert get(app.test_client(), url, **{"Accept-Encoding": accept}).status_code == 200
    assert sorted(made) == ["br", "gzip"]  # later requests reuse the forms


def test_raw_pages_are_the_raw_messages_of_the_document(app):
    client = app.test_client()
    capture_id = stored(app)
    whole = get(client, f"/api/captures/{capture_id}/timeline?raw=1").get_json()
    items = [item for message in whole["raw"] for item in message["items"]]
    version = versioned(client, capture_id).rsplit("v=", 1)[1]
    response = get(
        client,
        f"/api/captures/{capture_id}/timeline/raw?v={version}&stream=0&start=3&count=5",
        **{"Accept-Encoding": "gzip"},
    )
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == IMMUTABLE
    page = json.loads(body_of(response))
    assert page == {"type": "raw", "stream": 0, "start": 3, "items": items[3:8]}
    again = get(
        client,
        f"/api/captures/{capture_id}/timeline/raw?v={version}&stream=0&start=3&count=5",
        **{"Accept-Encoding": "gzip", "If-None-Match": response.headers["ETag"]},
    )
    assert again.status_code == 304
    # Without a version (or an old one) a page is revalidated; count is capped at 500.
    response = get(client, f"/api/captures/{capture_id}/timeline/raw?stream=0&start=0&count=100000")
    assert response.headers["Cache-Control"] == "public, no-cache"
    assert response.get_json()["items"] == items[:500]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("stream=0&start=-1&count=5", "'start'"),
        ("stream=x&start=0", "'stream'"),
        ("start=0", "'stream'"),
        ("stream=0&start=0&count=1.5", "'count'"),
        ("stream=7&start=0", "has 1 stream"),
    ],
)
def test_bad_raw_page_requests_say_which_parameter(app, query, named):
    client = app.test_client()
    response = get(client, f"/api/captures/{stored(app)}/timeline/raw?{query}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "bad_raw_request" and named in error["message"]


def test_a_deleted_capture_s_raw_pages_404(app):
    client = app.test_client()
    capture_id = stored(app)
    assert (
        get(client, f"/api/captures/{capture_id}/timeline/raw?stream=0&start=0").status_code == 200
    )
    assert services_of(app).store.delete(capture_id, TOKENS[capture_id])
    response = get(client, f"/api/captures/{capture_id}/timeline/raw?stream=0&start=0")
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "no_capture"


def test_the_player_page_points_at_the_immutable_url_only_when_the_capture_is_finished(app):
    client = app.test_client()
    capture_id = stored(app)
    page = get(client, f"/c/{capture_id}").get_data(as_text=True)
    timeline_url = versioned(client, capture_id)
    assert f'data-timeline-url="{timeline_url}"' in page
    version = timeline_url.rsplit("v=", 1)[1]
    assert f'data-raw-url="/api/captures/{capture_id}/timeline/raw?v={version}"' in page
    chunk = b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
    head = header_line(created="2026-11-30T00:00:00Z", source={"url": "http://127.0.0.1:9/v1"})
    record, _ = services_of(app).store.add(
        NewCapture(
            data=head + response_line(5.0, 200, "text/event-stream") + read_line(10.0, chunk),
            title="live run",
            format="timed",
            streams=1,
            source="live",
        )
    )
    page = get(client, f"/c/{record.id}").get_data(as_text=True)
    assert "data-timeline-url" not in page  # still growing: followed over the websocket
    assert 'data-source-id="' + record.id + '"' in page
