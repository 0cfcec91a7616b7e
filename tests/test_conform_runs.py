"""Batteries run from the page's API against the fake upstream on loopback (docs/conform.md,
"In the page"): ``POST /api/conform`` answers 202 at once, the report is rewritten in the store
after each case (what any process reads as progress), each case's answer is a stored capture
that opens in the player, the report has the ``--json`` document's shape, a key from a server
variable tied to the URL is sent and never kept, a server nothing answers is said, batteries
past ``STREAMSCOPE_MAX_CONFORM_RUNS`` are refused as busy, and deleting the report deletes its
captures."""

from __future__ import annotations

import time

import pytest

from app.web import create_app
from app.web.context import services_of

from .live_server import free_port
from .test_conform_cases import documented_keys, keys_of

pytestmark = pytest.mark.integration  # starts the fake upstream on loopback

HOST = {"Host": "127.0.0.1:5000"}


def finished(client, report: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(f"/api/conform/{report}", headers=HOST).get_json()
        if answer["state"] != "running":
            return answer
        time.sleep(0.05)
    raise AssertionError(f"report {report} still running after {timeout} s")


def test_a_battery_runs_reports_progress_and_stores_each_capture(app, fake, monkeypatch):
    client = app.test_client()
    store = services_of(app).store
    written: list[list[str]] = []
    update = store.update_report

    def spy(report_id, **changes):
        if changes.get("document") is not None:
            written.append([c["case"] for c in changes["document"]["cases"]])
        return update(report_id, **changes)

    monkeypatch.setattr(store, "update_report", spy)
    only = ["plain", "n2", "reasoning", "bad-request"]
    answer = client.post(
        "/api/conform",
        json={"base_url": fake.url, "model": "conform", "only": only, "expires": "7d"},
        headers=HOST,
    )
    assert answer.status_code == 202, answer.get_json()
    started = answer.get_json()
    assert started["state"] == "running" and started["planned"] == only
    assert started["url"] == f"/conform/{started['id']}" and started["delete_token"]
    assert answer.headers["Location"] == started["url"]
    done = finished(client, started["id"])
    assert done["state"] == "done" and done["error"] is None
    report = done["report"]
    assert [c["case"] for c in report["cases"]] == only  # the battery's order
    assert [c["verdict"] for c in report["cases"]] == ["pass"] * 4
    assert report["summary"]["passed"] is True and report["server"]["base_url"] == fake.url
    made, documented = keys_of(report), documented_keys()
    assert {part: made[part] for part in made} == {part: documented[part] for part in made}
    # One rewrite per case as it ended (each a prefix of the battery's order, growing by one),
    # then the final document.
    assert [len(cases) for cases in written] == [1, 2, 3, 4, 4]
    assert all(cases == [c for c in only if c in cases] for cases in written)
    # Each case's capture: stored as an upload is, titled as --server titles it, expiring with
    # the report; its player page opens; no token of it in the report.
    for case in report["cases"]:
        assert case["capture"].startswith("/c/") and case["shared"] == [{"url": case["capture"]}]
        capture_id = case["capture"].removeprefix("/c/")
        meta = client.get(f"/api/captures/{capture_id}", headers=HOST).get_json()
        assert meta["title"] == f"conform {case['case']} (conform)"
        assert meta["expires"] == pytest.approx(done["expires"], abs=5)
        assert client.get(case["capture"], headers=HOST).status_code == 200
    reasoning = report["cases"][2]
    assert [f["rule"] for f in reasoning["findings"]] == ["reasoning-field"]
    page = client.get(started["url"], headers=HOST).get_data(as_text=True)
    assert f'href="{reasoning["capture"]}?finding=reasoning-field"' in page
    # Deleted with its token: the report and every capture of it.
    answer = client.delete(
        f"/api/conform/{started['id']}", headers={**HOST, "X-Delete-Token": started["delete_token"]}
    )
    assert answer.status_code == 204
    assert client.get(f"/api/conform/{started['id']}", headers=HOST).status_code == 404
    for case in report["cases"]:
        assert client.get(f"/api/captures/{case['capture'][3:]}", headers=HOST).status_code == 404


def test_a_key_from_a_variable_tied_to_the_url_is_sent_and_never_kept(tmp_path, fake, monkeypatch):
    canary = "sk-conform-canary-0123456789abcdef"
    monkeypatch.setenv("CONFORM_TEST_KEY", canary)
    monkeypatch.setenv("STREAMSCOPE_API_KEYS", f"CONFORM_TEST_KEY={fake.url}")
    app = create_app({"data_dir": str(tmp_path / "data")})
    client = app.test_client()
    answer = client.post(
        "/api/conform",
        json={
            "base_url": fake.url,
            "model": "conform",
            "only": "plain",
            "api_key_env": "CONFORM_TEST_KEY",
        },
        headers=HOST,
    )
    assert answer.status_code == 202, answer.get_json()
    done = finished(client, answer.get_json()["id"])
    assert done["report"]["cases"][0]["verdict"] == "pass"
    capture_id = done["report"]["cases"][0]["capture"].removeprefix("/c/")
    sent = [r for r in fake.requests if r["body"] and r["body"].get("model") == "conform"]
    assert sent and sent[-1]["headers"]["authorization"] == f"Bearer {canary}"
    stored = services_of(app).store.read_bytes(capture_id)
    assert canary.encode() not in stored and canary not in str(done)
    page = client.get(f"/conform/{done['id']}", headers=HOST).get_data(as_text=True)
    assert canary not in page


def test_a_server_nothing_answers_is_said_in_the_report(client):
    url = f"http://127.0.0.1:{free_port()}/v1"
    answer = client.post("/api/conform", json={"base_url": url, "model": "m"}, headers=HOST)
    assert answer.status_code == 202
    done = finished(client, answer.get_json()["id"])
    assert done["state"] == "done"
    server = done["report"]["server"]
    assert server["reached"] is False and server["error"]
    assert len(done["report"]["cases"]) == 1 and done["report"]["summary"]["passed"] is False
    page = client.get(f"/conform/{done['id']}", headers=HOST).get_data(as_text=True)
    assert 'data-testid="conform-unreached"' in page


def test_batteries_past_the_cap_are_refused_as_busy(tmp_path, fake):
    app = create_app({"data_dir": str(tmp_path / "data"), "max_conform_runs": 1})
    client = app.test_client()
    slow = {"base_url": fake.url, "model": "slow:10", "only": ["plain"]}  # about a second
    first = client.post("/api/conform", json=slow, headers=HOST)
    assert first.status_code == 202
    second = client.post("/api/conform", json=slow, headers=HOST)
    assert second.status_code == 503
    error = second.get_json()["error"]
    assert error["code"] == "conform_busy" and "STREAMSCOPE_MAX_CONFORM_RUNS" in error["message"]
    finished(client, first.get_json()["id"])
    deadline = time.monotonic() + 5  # the slot is given back as the battery's thread ends
    while time.monotonic() < deadline:
        third = client.post("/api/conform", json=slow, headers=HOST)
        if third.status_code == 202:
            break
        time.sleep(0.05)
    assert third.status_code == 202
    finished(client, third.get_json()["id"])


def test_an_answer_past_the_live_runs_cap_is_stopped_and_the_case_fails(tmp_path, fake):
    app = create_app({"data_dir": str(tmp_path / "data"), "max_live_mb": 1})
    client = app.test_client()
    answer = client.post(
        "/api/conform",
        json={"base_url": fake.url, "model": "flood:16", "only": ["plain"]},
        headers=HOST,
    )
    assert answer.status_code == 202
    done = finished(client, answer.get_json()["id"])
    plain = done["report"]["cases"][0]
    assert plain["verdict"] == "fail" and "too_large" in plain["why"], plain["why"]
    how, _ = fake.wait_end("flood:16")
    assert how == "closed"  # the upstream's connection was cut, not read to its end
    capture_id = plain["capture"].removeprefix("/c/")
    size = len(services_of(app).store.read_bytes(capture_id))
    assert 1_000_000 < size < 3_000_000, size  # what arrived until the cap, kept


def test_deleting_a_running_report_stops_its_battery_and_frees_its_slot(tmp_path, fake):
    app = create_app({"data_dir": str(tmp_path / "data"), "max_conform_runs": 1})
    client = app.test_client()
    model = "slow:9"  # about a second a case
    only = ["plain", "long", "unicode", "no-usage", "max-tokens"]
    before = sum(1 for r in fake.requests if (r["body"] or {}).get("model") == model)
    answer = client.post(
        "/api/conform", json={"base_url": fake.url, "model": model, "only": only}, headers=HOST
    )
    assert answer.status_code == 202
    started = answer.get_json()
    deadline = time.monotonic() + 10
    while not (client.get(f"/api/conform/{started['id']}", headers=HOST).get_json()["report"]):
        assert time.monotonic() < deadline, "the first case did not end"
        time.sleep(0.02)
    token = {"X-Delete-Token": started["delete_token"]}
    assert client.delete(f"/api/conform/{started['id']}", headers={**HOST, **token}).status_code
    # The two cases running then end; the two not started are not run, and the slot is free.
    clean = {"base_url": fake.url, "model": "conform", "only": "plain"}
    deadline = time.monotonic() + 10
    while (again := client.post("/api/conform", json=clean, headers=HOST)).status_code != 202:
        assert time.monotonic() < deadline, "the slot was not given back"
        time.sleep(0.05)
    finished(client, again.get_json()["id"])
    sent = sum(1 for r in fake.requests if (r["body"] or {}).get("model") == model) - before
    assert sent == 3, sent  # the first case, then the two running when it was deleted
    assert services_of(app).store.execute(
        "SELECT COUNT(*) FROM captures WHERE title LIKE ?", ("%slow:9%",)
    ).fetchone() == (0,)  # what the running cases recorded after the deletion was dropped


def test_an_anthropic_battery_with_a_typed_key(app, fake):
    client = app.test_client()
    canary = "sk-ant-typed-canary-0123456789abcdef"
    answer = client.post(
        "/api/conform",
        json={
            "api": "anthropic",
            "base_url": fake.url.removesuffix("/v1"),
            "model": "conform",
            "only": ["plain", "tool-single"],
            "api_key": canary,
        },
        headers=HOST,
    )
    assert answer.status_code == 202, answer.get_json()
    done = finished(client, answer.get_json()["id"])
    assert done["report"]["server"]["api"] == "anthropic"
    assert [(c["case"], c["verdict"]) for c in done["report"]["cases"]] == [
        ("plain", "pass"),
        ("tool-single", "pass"),
    ]
    sent = [r for r in fake.requests if r["path"].endswith("/v1/messages")]
    assert sent and sent[-1]["headers"]["x-api-key"] == canary
    store = services_of(app).store
    for case in done["report"]["cases"]:
        assert canary.encode() not in store.read_bytes(case["capture"].removeprefix("/c/"))
    assert canary not in str(done)
