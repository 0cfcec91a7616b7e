"""Issue 10, live side, through a real server: server keys go only to their upstream, a key
echoed across reads is never recorded, the size cap, /api/models bounded in time, size and
number, HTML answers named by their title, and deleting a recording while it streams."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from app.captures import read_capture

from .fake_upstream import FOREIGN_KEY, FakeUpstream
from .live_server import LiveServer
from .test_api import request
from .test_live import collect, connect, start, started, texts

pytestmark = pytest.mark.integration  # starts real servers on loopback

SERVER_KEY = "sk-server-canary-0a1b2c3d4e5f60718293"
TYPED_KEY = "typed-canary-not-key-shaped-5e6f7a8b"  # only the request's own key can catch it


@pytest.fixture(scope="module")
def attacker():
    server = FakeUpstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake):
    env = {
        "SERVER_KEY": SERVER_KEY,
        "STREAMSCOPE_API_KEYS": f"SERVER_KEY={fake.url}",
        "STREAMSCOPE_MAX_LIVE_MB": "1",
        "STREAMSCOPE_MODELS_TIMEOUT": "2",
        "STREAMSCOPE_MAX_CONCURRENT_MODELS": "2",
        "STREAMSCOPE_TOTAL_TIMEOUT": "30",
    }
    live = LiveServer(tmp_path_factory.mktemp("hardening"), env=env).start()
    yield live
    live.stop()


def models(server, base_url: str, **extra) -> tuple[int, dict]:
    body = json.dumps({"base_url": base_url, **extra}).encode()
    status, _, answer = request(
        server, "POST", "/api/models", body, {"Content-Type": "application/json"}, timeout=30
    )
    return status, json.loads(answer)


def keys_seen(upstream: FakeUpstream) -> list[str]:
    return [r["headers"].get("authorization", "") for r in upstream.requests]


# ---------------------------------------------------------------------- 1. keys


@pytest.mark.parametrize(
    "base_url",
    [
        "{attacker}",  # another host:port
        "http://localhost:{fake_port}/v1",  # the same address under another name
        "https://127.0.0.1:{fake_port}/v1",  # another scheme
        "http://127.0.0.1:{fake_port}/v2",  # a path outside the configured one
        "http://127.0.0.1:{fake_port}/v1@127.0.0.1:{attacker_port}/v1",
        "http://127.0.0.1:{fake_port}/v1/../../x",
        "http://127.0.0.1:{fake_port}/v1%2f..%2fx",
        "http://127.0.0.1:{fake_port}/v1?next=http://{attacker}",
    ],
)
def test_a_server_key_is_never_sent_to_another_upstream(server, fake, attacker, base_url):
    url = base_url.format(attacker=attacker.url, fake_port=fake.port, attacker_port=attacker.port)
    before_fake, before_attacker = len(fake.requests), len(attacker.requests)
    ws = start(server, fake, "slow:2", base_url=url, key=None, api_key_env="SERVER_KEY")
    answer = collect(ws)
    ws.close()
    assert answer[-1]["type"] == "error" and answer[-1]["code"] == "bad_run", answer[-1]
    assert "SERVER_KEY" in answer[-1]["message"]
    status, body = models(server, url, api_key_env="SERVER_KEY")
    assert status == 400 and body["error"]["code"] == "bad_upstream", body
    assert len(attacker.requests) == before_attacker and len(fake.requests) == before_fake
    assert SERVER_KEY not in json.dumps(answer) + json.dumps(body)


def test_a_server_key_goes_to_its_own_upstream_and_paths_under_it(server, fake, attacker):
    ws = start(server, fake, "slow:2", key=None, api_key_env="SERVER_KEY")
    assert collect(ws)[-1]["reason"] == "done"
    ws.close()
    status, body = models(server, fake.url + "/", api_key_env="SERVER_KEY")
    assert status == 200 and "fake-small" in body["models"]
    assert keys_seen(fake)[-2:] == [f"Bearer {SERVER_KEY}"] * 2
    assert f"Bearer {SERVER_KEY}" not in keys_seen(attacker)


def test_a_key_variable_the_server_does_not_tie_is_refused(server, fake):
    status, body = models(server, fake.url, api_key_env="PATH")
    assert status == 400 and "PATH is not a key variable of this server" in body["error"]["message"]


def test_a_malformed_key_setting_stops_the_server_with_a_clear_message(tmp_path):
    import subprocess
    import sys

    from .live_server import ROOT

    for value, words in [
        ("OPENAI_API_KEY", "write VARIABLE=BASE_URL"),
        ("K=https://user:pw@example.com/v1", "user-info"),
    ]:
        result = subprocess.run(
            [sys.executable, "-m", "app.cli", "serve", "--port", "0", "--data-dir", str(tmp_path)],
            cwd=ROOT,
            env={**os.environ, "STREAMSCOPE_API_KEYS": value},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------- 2. split echoes


def test_keys_echoed_across_two_reads_are_recorded_and_shown_nowhere(server, fake):
    ws = start(server, fake, "echo-split", key=TYPED_KEY)
    messages = collect(ws)
    ws.close()
    assert messages[-1]["reason"] == "done"
    capture_id = started(messages)["capture"]
    shown = json.dumps(messages)
    assert "key [redacted] and [redacted] seen" in "".join(
        e["text"]
        for m in messages
        if m["type"] == "events"
        for e in m["events"]
        if e["kind"] == "text"
    )
    downloads = [
        request(server, "GET", f"/api/captures/{capture_id}/download/{kind}")[2]
        for kind in ("original", "timed", "jsonl", "sse")
    ]
    stored_reads = [r for r in read_capture(downloads[1]).streams[0].raw]
    assert len(stored_reads) >= 1
    for secret in (TYPED_KEY, FOREIGN_KEY):
        for piece in (secret, secret[: len(secret) // 2], secret[len(secret) // 2 :]):
            assert piece not in shown
            for data in downloads:
                assert piece.encode() not in data
    files = b"".join(p.read_bytes() for p in server.data_dir.rglob("*") if p.is_file())
    for secret in (TYPED_KEY, FOREIGN_KEY):
        assert secret[len(secret) // 2 :].encode() not in files  # the WAL included


SLASHED_KEY = "typed/canary+not-key-shaped/5e6f7a8b"  # a credential with slashes
BODY_SECRET = "plain-secret-value-77"  # a field's value in a JSON string of the request


def test_keys_echoed_with_json_escapes_are_recorded_and_shown_nowhere(server, fake):
    """Issue 26, item 2: the upstream echoes the key as ``\\u0074yped...``, as
    ``typed\\/canary...``, and the request body (whose message holds ``{"api_key": ...}``)
    inside a string. Before, all three were kept in the recording, its downloads, the WAL and
    the timeline, and shown decoded in the page; the same bytes uploaded were redacted."""
    body = {
        "model": "echo-escaped",
        "messages": [{"role": "user", "content": json.dumps({"api_key": BODY_SECRET})}],
    }
    ws = start(server, fake, "echo-escaped", key=SLASHED_KEY, body=body)
    messages = collect(ws)
    ws.close()
    assert messages[-1]["reason"] == "done", messages[-1]
    capture_id = started(messages)["capture"]
    text = texts(messages)
    assert text.startswith("[redacted] | [redacted] | {"), text
    shown = json.dumps(messages)
    downloads = [
        request(server, "GET", f"/api/captures/{capture_id}/download/{kind}")[2]
        for kind in ("original", "timed", "jsonl", "sse")
    ]
    files = b"".join(p.read_bytes() for p in server.data_dir.rglob("*") if p.is_file())
    for secret in (SLASHED_KEY, SLASHED_KEY[1:], SLASHED_KEY.split("/")[-1], BODY_SECRET):
        assert secret not in shown and secret not in text, secret
        for data in (*downloads, files):
            assert secret.encode() not in data, secret


# ---------------------------------------------------------------------- 8. the size cap


def test_a_run_past_its_size_cap_stops_upstream_ends_too_large_and_its_part_replays(server, fake):
    ws = start(server, fake, "flood:20")
    messages = collect(ws, timeout=60)
    ws.close()
    end = messages[-1]
    assert end["type"] == "end" and end["reason"] == "too_large", end
    assert "STREAMSCOPE_MAX_LIVE_MB" in end["error"]
    how, _ = fake.wait_end("flood:20")
    assert how == "closed"  # the upstream was stopped, not read to its end
    capture_id = started(messages)["capture"]
    status, _, timed = request(server, "GET", f"/api/captures/{capture_id}/download/timed")
    assert status == 200 and 100_000 < len(timed) < 1_200_000
    stream = read_capture(timed).streams[0]
    assert stream.end_reason == "too_large" and stream.raw
    viewer = connect(server)
    viewer.send(json.dumps({"type": "open", "source": {"capture": capture_id}}))
    replay = collect(viewer)
    viewer.close()
    assert any(m["type"] == "events" and m["events"] for m in replay)


# ---------------------------------------------------------------------- 8, 9. /api/models


def test_a_huge_models_answer_is_not_read_past_its_cap(server, fake):
    status, body = models(server, fake.url + "/big")
    assert status == 400 and body["error"]["code"] == "bad_upstream"
    assert "over 1024 KiB" in body["error"]["message"]
    upstream = body["error"]["upstream"]
    assert upstream["status"] == 200 and upstream["content_type"] == "application/json"
    assert len(upstream["body"].encode()) <= 4096 and upstream["title"] is None
    how, _ = fake.wait_end("GET big")
    assert how == "closed"


def test_a_dripping_models_answer_ends_at_the_deadline(server, fake):
    started_at = time.monotonic()
    status, body = models(server, fake.url + "/drip")
    assert status == 400 and "within 2 s (STREAMSCOPE_MODELS_TIMEOUT)" in body["error"]["message"]
    assert body["error"]["upstream"]["status"] == 200  # it answered: its headers came
    assert time.monotonic() - started_at < 20  # not the 200 s the answer would take


def test_model_lists_beyond_the_limit_are_busy_at_once_and_pages_keep_answering(server, fake):
    results: list[tuple[int, dict]] = []
    threads = [
        threading.Thread(target=lambda: results.append(models(server, fake.url + "/drip")))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while len([r for r in fake.requests if "/drip/" in r["path"]]) < 2 + 1:  # +1: the test above
        assert time.monotonic() < deadline, "the two lists never reached the upstream"
        time.sleep(0.05)
    status, body = models(server, fake.url)
    assert status == 503 and body["error"]["code"] == "busy"
    assert "STREAMSCOPE_MAX_CONCURRENT_MODELS" in body["error"]["message"]
    assert request(server, "GET", "/healthz", timeout=10)[0] == 200
    for thread in threads:
        thread.join(20)
    assert [status for status, _ in results] == [400, 400]
    assert models(server, fake.url)[0] == 200  # the slots are free again


def test_an_html_models_answer_is_named_by_its_title_with_the_page_as_text(server, fake):
    status, body = models(server, fake.url + "/html404", api_key=TYPED_KEY)
    assert status == 400
    error = body["error"]
    assert error["code"] == "bad_upstream"
    assert error["message"] == (
        f"HTTP 404 from 127.0.0.1:{fake.port}: an HTML page titled 'Not Found', not the models list"
    )
    upstream = error["upstream"]
    assert set(upstream) == {"status", "content_type", "title", "body"}
    assert upstream["status"] == 404 and upstream["title"] == "Not Found"
    assert upstream["content_type"].startswith("text/html")
    assert upstream["body"].startswith("<!DOCTYPE html>") and len(upstream["body"]) <= 4096
    assert TYPED_KEY not in json.dumps(body) and "[redacted]" in upstream["body"]


def test_a_json_models_error_carries_the_upstream_too(server, fake):
    status, body = models(server, fake.url + "/missing")
    assert status == 400
    assert body["error"]["message"] == f"HTTP 404 from 127.0.0.1:{fake.port}: not found"
    assert body["error"]["upstream"]["title"] is None
    assert body["error"]["upstream"]["status"] == 404


def test_an_html_answer_to_a_run_is_named_by_its_title(server, fake):
    ws = start(server, fake, "html:503")
    messages = collect(ws, timeout=30)
    ws.close()
    assert messages[-1]["reason"] == "error"
    assert messages[-1]["error"] == (
        "HTTP 503 from upstream: an HTML page titled 'Service Unavailable', not a stream"
    )


# ---------------------------------------------------------------------- 10. delete while live


def threads_of(server) -> int:
    return len(os.listdir(f"/proc/{server.process.pid}/task"))


def test_deleting_a_live_recording_ends_it_for_every_viewer_and_its_threads(server, fake):
    assert request(server, "GET", "/healthz")[0] == 200
    time.sleep(0.5)
    baseline = threads_of(server)
    ws = start(server, fake, "slow:64")
    first = collect(ws, until="capture", timeout=5)
    info = started(first)
    viewer = connect(server)
    viewer.send(json.dumps({"type": "open", "source": {"capture": info["capture"]}}))
    collect(viewer, until="capture", timeout=5)
    time.sleep(0.5)
    status, _, _ = request(
        server,
        "DELETE",
        f"/api/captures/{info['capture']}",
        headers={"X-Delete-Token": info["delete_token"]},
    )
    assert status == 204
    for page in (ws, viewer):
        end = collect(page, timeout=10)[-1]
        assert end["type"] == "end" and end["reason"] == "cancelled", end
        assert "deleted" in end["error"]
        page.close()
    how, _ = fake.wait_end("slow:64")
    assert how == "closed"  # the run stopped its upstream
    deadline = time.monotonic() + 15
    while threads_of(server) > baseline:
        assert time.monotonic() < deadline, (threads_of(server), baseline)
        time.sleep(0.1)
    assert request(server, "GET", f"/api/captures/{info['capture']}")[0] == 404


def record(tmp_path, fake, model: str, key: str) -> tuple[subprocess.CompletedProcess, bytes]:
    from .live_server import ROOT

    out = tmp_path / "echo.timed.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "record",
            "--base-url",
            fake.url,
            "--model",
            model,
            "--api-key-env",
            "RECORD_KEY",
            "-o",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "RECORD_KEY": key},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result, out.read_bytes()


def test_record_command_redacts_keys_echoed_across_reads(tmp_path, fake):
    result, recorded = record(tmp_path, fake, "echo-split", TYPED_KEY)
    assert "key [redacted] and [redacted] seen" in result.stdout  # the text, as it streamed
    assert read_capture(recorded).streams[0].end_reason == "done"
    for secret in (TYPED_KEY, FOREIGN_KEY):
        for piece in (secret[: len(secret) // 2], secret[len(secret) // 2 :]):
            assert piece.encode() not in recorded and piece not in result.stdout


def test_record_command_redacts_keys_echoed_with_json_escapes(tmp_path, fake):
    result, recorded = record(tmp_path, fake, "echo-escaped", SLASHED_KEY)
    assert "[redacted] | [redacted] | {" in result.stdout
    for secret in (SLASHED_KEY, SLASHED_KEY[1:], SLASHED_KEY.split("/")[-1]):
        assert secret.encode() not in recorded and secret not in result.stdout


def test_a_run_whose_sink_fails_still_ends(fake):
    from app.live.policy import Policy
    from app.live.request import RunRequest
    from app.live.upstream import UpstreamRun

    class FailingSink:
        def __init__(self) -> None:
            self.ends: list[tuple[str, str | None]] = []

        def status(self, state: str, message: str) -> None:
            pass

        def response(self, t: float, status: int, content_type: str) -> None:
            pass

        def read(self, t: float, data: bytes) -> None:
            raise RuntimeError("a bug in the sink")

        def end(self, t: float, reason: str, error: str | None) -> None:
            self.ends.append((reason, error))

    sink = FailingSink()
    body = {"model": "slow:3", "messages": [], "stream": True}
    UpstreamRun(RunRequest(base_url=fake.url, body=body), sink, Policy(public=False)).run()
    assert sink.ends == [("error", "the server failed during the run; it has been logged")]


def test_sixty_four_dripping_model_lists_leave_gunicorn_answering(tmp_path, fake):
    # Every client here is 127.0.0.1: its share of the slow work is lifted, so that what is
    # tested is the model lists' own limit and the server's capacity (tests/test_proxy_share.py
    # tests the share).
    env = {"STREAMSCOPE_MODELS_TIMEOUT": "5", "STREAMSCOPE_WORK_PER_CLIENT": "1000"}
    production = LiveServer(
        tmp_path / "production", extra_args=["--production", "--threads", "16"], env=env
    ).start()
    try:
        before = len([r for r in fake.requests if "/drip/" in r["path"]])
        results: list[int] = []

        def one() -> None:
            try:
                results.append(models(production, fake.url + "/drip")[0])
            except OSError:
                results.append(0)

        threads = [threading.Thread(target=one) for _ in range(64)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the lists are in flight (4 of them dripping, the rest answered busy)
        assert request(production, "GET", "/healthz", timeout=10)[0] == 200
        assert request(production, "GET", "/", timeout=10)[0] == 200
        for thread in threads:
            thread.join(30)
        assert sorted(set(results)) == [400, 503], results
        assert results.count(400) <= 4  # the limit's default; the rest were busy at once
        assert len([r for r in fake.requests if "/drip/" in r["path"]]) - before <= 4
    finally:
        production.stop()
