"""Heavy GETs (issue 26, item 3; docs/security.md, "Heavy GETs"): the timeline document, the
static export and the downloads are built once per capture version and kept (on disk when
large), served by ETag and streamed from there; they count against the slow-work budget and
one address's share of it; the parsed-capture cache is bounded by bytes.

Before: every ``player.html`` GET rebuilt the export (about five copies of the document: one
GET of a 51 MB capture added about 1 GiB, six at once 2.8 GB), every download was rebuilt per
request, none of them counted as slow work, and the capture cache held 8 captures whatever
their size."""

from __future__ import annotations

import sys
import threading

import pytest

from app.services import exports
from app.services.results import IN_MEMORY, Results
from app.services.sources import CaptureCache, Loaded
from app.storage import NewCapture
from app.web import create_app
from app.web.context import services_of
from app.web.http import timeline

HOST = {"Host": "127.0.0.1:5000"}


def chunk(i: int) -> bytes:
    return (
        b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
        b'{"content":"word %d "}}]}\n\n' % i
    )


BIG = b"".join(chunk(i) for i in range(6000)) + b"data: [DONE]\n\n"  # its documents > IN_MEMORY


@pytest.fixture
def app(tmp_path):
    return create_app({"data_dir": str(tmp_path)})


def stored(app, data: bytes = BIG, title: str = "big") -> str:
    record, _ = services_of(app).store.add(
        NewCapture(data=data, title=title, format="sse", streams=1)
    )
    return record.id


def get(app, url: str, **headers: str):
    return app.test_client().get(url, headers={**HOST, **headers}, buffered=True)


def counting(monkeypatch, module, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


# ------------------------------------------------------------------ built once, by ETag
def test_the_export_is_built_once_then_sent_from_disk_with_its_etag(app, monkeypatch):
    builds = counting(monkeypatch, timeline, "write_document")
    capture_id = stored(app)
    url = f"/api/captures/{capture_id}/player.html"
    first = get(app, url)
    assert first.status_code == 200 and first.headers["Content-Disposition"].endswith('.html"')
    assert b'<script type="application/json" id="streamscope-data">{"timeline":' in first.data
    again = get(app, url)
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    assert builds == [1]  # the raw document, once; the export from it, once
    assert get(app, url, **{"If-None-Match": first.headers["ETag"]}).status_code == 304
    files = list(app_results(app).folder.glob("capture-*"))
    assert any(p.name.startswith(f"capture-{capture_id}.export.") for p in files)


def app_results(app) -> Results:
    return services_of(app).results


def test_new_markers_make_a_new_export(app):
    record, token = services_of(app).store.add(
        NewCapture(data=BIG, title="marked", format="sse", streams=1)
    )
    capture_id = record.id
    url = f"/api/captures/{capture_id}/player.html"
    before = get(app, url).headers["ETag"]
    store = services_of(app).store
    store.add_marker(capture_id, token, {"t": 0.5, "stream": 0, "label": "here", "note": ""}, 10)
    after = get(app, url)
    assert after.headers["ETag"] != before and b"here" in after.data


@pytest.mark.parametrize("kind", exports.EXPORTS)
def test_each_download_is_built_once_and_answered_304_by_etag(app, monkeypatch, kind):
    builds = counting(monkeypatch, sys.modules["app.web.http.api"], "export")
    capture_id = stored(app)
    url = f"/api/captures/{capture_id}/download/{kind}"
    first, again = get(app, url), get(app, url)
    assert first.status_code == again.status_code == 200
    assert first.data == again.data and first.headers["ETag"] == again.headers["ETag"]
    assert first.headers["X-Content-Type-Options"] == "nosniff"
    assert len(builds) == 1
    assert get(app, url, **{"If-None-Match": first.headers["ETag"]}).status_code == 304
    if kind == "original":
        assert first.data == BIG


def test_a_large_result_is_sent_from_its_file_and_a_small_one_from_memory(app):
    capture_id = stored(app)
    small_id = stored(app, chunk(1) + b"data: [DONE]\n\n", "small")
    large = get(app, f"/api/captures/{capture_id}/timeline")
    small = get(app, f"/api/captures/{small_id}/timeline")
    assert large.status_code == small.status_code == 200
    names = {
        p.name.split(".")[0] + "." + p.name.split(".")[1]
        for p in app_results(app).folder.glob("capture-*")
        if not p.name.endswith(".json")
    }
    assert f"capture-{capture_id}.timeline" in names
    assert f"capture-{small_id}.timeline" not in names  # under IN_MEMORY: kept in memory
    assert len(small.data) < IN_MEMORY <= len(large.data)


def test_deleting_a_capture_removes_its_results(app):
    record, token = services_of(app).store.add(
        NewCapture(data=BIG, title="gone", format="sse", streams=1)
    )
    for url in ("timeline", "player.html", "download/jsonl"):
        assert get(app, f"/api/captures/{record.id}/{url}").status_code == 200
    assert list(app_results(app).folder.glob(f"capture-{record.id}.*"))
    answer = app.test_client().delete(
        f"/api/captures/{record.id}", headers={**HOST, "X-Delete-Token": token}
    )
    assert answer.status_code == 204
    assert list(app_results(app).folder.glob(f"capture-{record.id}.*")) == []
    assert get(app, f"/api/captures/{record.id}/timeline").status_code == 404


def test_results_on_disk_are_bounded_by_bytes(tmp_path):
    results = Results(tmp_path, max_bytes=3 * IN_MEMORY)
    for n in range(6):
        results.get(f"capture-{n}", "timeline", "v", lambda out: out.write(b"x" * IN_MEMORY))
    kept = [p for p in tmp_path.iterdir() if not p.name.endswith(".json")]
    assert sum(p.stat().st_size for p in kept) <= 3 * IN_MEMORY
    assert (tmp_path / next(p.name for p in kept if p.name.startswith("capture-5."))).exists()


def test_concurrent_first_requests_wait_for_one_build(tmp_path):
    results = Results(tmp_path, max_bytes=1 << 30)
    started, release, builds = threading.Event(), threading.Event(), []

    def build(out) -> None:
        builds.append(1)
        started.set()
        release.wait(5)
        out.write(b"y" * IN_MEMORY)

    found: list[str] = []
    threads = [
        threading.Thread(target=lambda: found.append(results.get("c", "k", "v", build).digest))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    started.wait(5)
    release.set()
    for thread in threads:
        thread.join(5)
    assert builds == [1] and len(set(found)) == 1 and len(found) == 6


# ------------------------------------------------------------------ counted as slow work
def test_heavy_gets_count_against_the_slow_work_and_one_address_share(tmp_path, monkeypatch):
    app = create_app({"data_dir": str(tmp_path), "work_per_client": 2})
    ids = [stored(app, BIG, f"c{n}") for n in range(3)]
    entered, release = threading.Event(), threading.Event()
    real = timeline.write_document

    def slow(*args, **kwargs):
        entered.set()
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(timeline, "write_document", slow)
    answers: list[int] = []
    threads = [
        threading.Thread(
            target=lambda i=i: answers.append(get(app, f"/api/captures/{i}/timeline").status_code)
        )
        for i in ids[:2]
    ]
    for thread in threads:
        thread.start()
    entered.wait(5)
    while services_of(app).workload.of("127.0.0.1") < 2:
        threading.Event().wait(0.01)
    third = get(app, f"/api/captures/{ids[2]}/timeline")
    assert third.status_code == 429 and third.get_json()["error"]["code"] == "too_many_requests"
    assert get(app, "/healthz").status_code == 200  # not heavy: the reserve serves it
    release.set()
    for thread in threads:
        thread.join(10)
    assert answers == [200, 200]
    assert services_of(app).workload.active == 0


# ------------------------------------------------------------------ the capture cache, by bytes
def loaded(key: str, size: int) -> Loaded:
    from app.captures import Capture

    return Loaded(key, key, Capture(format="sse"), {}, size=size)


def test_the_capture_cache_is_bounded_by_bytes_and_keeps_the_newest():
    cache = CaptureCache(max_bytes=10 * 1024 * 1024)
    for n in range(4):
        cache.put(f"c{n}", loaded(f"c{n}", 3 * 1024 * 1024))  # 4.5 MB each once parsed
    assert cache.weight() <= 10 * 1024 * 1024
    assert cache._cached("c3") is not None and cache._cached("c0") is None
    cache.put("huge", loaded("huge", 50 * 1024 * 1024))
    assert cache._cached("huge") is not None and cache._cached("c3") is None  # newest stays


# ------------------------------------------------------------------ memory, on a real server
def capture_of(megabytes: int, seed: str) -> bytes:
    line = (
        b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
        b'{"content":"%s word %%d "}}]}\n\n' % seed.encode()
    )
    count = megabytes * 1024 * 1024 // len(line)
    return b"".join(line % i for i in range(count)) + b"data: [DONE]\n\n"


@pytest.mark.integration
@pytest.mark.slow
def test_concurrent_exports_of_a_capture_cost_one_build_and_a_repeat_costs_none(tmp_path):
    """Before: each of six concurrent ``player.html`` GETs built its own export (2.8x the
    memory of one). Now the six wait for one build and are sent from its file."""
    from .live_server import LiveServer
    from .rawhttp import exchange, head, peak_kib, reset_peak, serving_pid

    share = {"STREAMSCOPE_WORK_PER_CLIENT": "16"}  # every client here is 127.0.0.1
    with LiveServer(tmp_path / "data", ["--production", "--threads", "16"], share) as live:
        pid = serving_pid(live)
        ids = []
        for seed in ("one", "six"):
            body = capture_of(12, seed)
            request = head(
                "POST",
                "/api/captures?format=sse",
                f"127.0.0.1:{live.port}",
                {"Content-Type": "text/event-stream", "Content-Length": str(len(body))},
            )
            answer = exchange(live.port, request, body, timeout=120)
            assert answer.status == 201, answer
            ids.append(__import__("json").loads(answer.body)["id"])

        def export(capture_id: str) -> int:
            path = f"/api/captures/{capture_id}/player.html"
            answer = exchange(live.port, head("GET", path, f"127.0.0.1:{live.port}"), timeout=120)
            return answer.status

        def grown_by(capture_id: str, at_once: int) -> float:
            base = reset_peak(pid)
            statuses: list[int] = []
            threads = [
                threading.Thread(target=lambda: statuses.append(export(capture_id)))
                for _ in range(at_once)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            assert statuses == [200] * at_once
            return (peak_kib(pid) - base) / 1024

        one = grown_by(ids[0], 1)
        six = grown_by(ids[1], 6)
        repeat = grown_by(ids[1], 6)
        assert six < 1.5 * one + 32, (one, six)
        assert repeat < 32, repeat  # sent from its file, nothing built
