"""``streamscope conform`` in the page, in this process (docs/conform.md, "In the page"): what
``POST /api/conform`` refuses, and why, before anything is sent (the API, the cases, the base
URL, the model, a key variable not tied to the URL, a private address on a public server);
``GET``/``DELETE /api/conform/<id>``; the report page and the comparison drawn from stored
reports, their text escaped. The batteries themselves run in tests/test_conform_runs.py."""

from __future__ import annotations

import re

import pytest

from app.web import create_app
from app.web.context import services_of

HOST = {"Host": "127.0.0.1:5000"}
URL = "http://127.0.0.1:9/v1"  # never reached: every request here is refused first


def start(client, **body):
    return client.post("/api/conform", json=body, headers=HOST)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"base_url": URL}, "model must be"),
        ({"base_url": URL, "model": ""}, "model must be"),
        ({"base_url": URL, "model": "m" * 300}, "at most 256"),
        ({"base_url": "ftp://h/v1", "model": "m"}, "base_url must be an http(s) URL"),
        ({"base_url": "http://[::1", "model": "m"}, "base_url must be an http(s) URL"),
        ({"base_url": URL, "model": "m", "api": "ollama"}, "no case of the battery speaks"),
        ({"base_url": URL, "model": "m", "api": "nope"}, "unknown api"),
        ({"base_url": URL, "model": "m", "only": ["plain", "nonsense"]}, "unknown case"),
        ({"base_url": URL, "model": "m", "only": "plain", "skip": "plain"}, "leave no case"),
        ({"base_url": URL, "model": "m", "only": [1, 2]}, "only must be a list"),
        ({"base_url": URL, "model": "m", "expires": "1y"}, "expires must be one of"),
        ({"base_url": URL, "model": "m", "api_key": 42}, "api_key must be text"),
        ({"base_url": URL, "model": "m", "api_key": "a\nb"}, "api_key"),
        (
            {"base_url": URL, "model": "m", "api_key_env": "OPENAI_API_KEY"},
            "may only be sent to https://api.openai.com/v1",
        ),
    ],
)
def test_bad_requests_are_refused_with_why(client, body, said):
    answer = start(client, **body)
    assert answer.status_code == 400, answer.get_json()
    error = answer.get_json()["error"]
    assert error["code"] == "bad_conform" and said in error["message"], error
    assert services_of(client.application).store.execute(
        "SELECT COUNT(*) FROM conform_reports"
    ).fetchone() == (0,)


def test_a_body_that_is_not_a_json_object_is_refused(client):
    for data in ("not json", "[1, 2]"):
        answer = client.post(
            "/api/conform", data=data, headers={**HOST, "Content-Type": "application/json"}
        )
        assert answer.status_code == 400
        assert answer.get_json()["error"]["code"] == "bad_request"


def test_a_public_server_refuses_a_private_address(tmp_path):
    app = create_app({"data_dir": str(tmp_path / "data"), "public": True})
    client = app.test_client()
    for url in ("http://127.0.0.1:8000/v1", "http://10.1.2.3/v1", "http://169.254.169.254/v1"):
        answer = start(client, base_url=url, model="m")
        assert answer.status_code == 400, url
        assert answer.get_json()["error"]["code"] == "bad_conform"
    assert (
        b"private, loopback and metadata addresses are refused"
        in client.get("/conform", headers=HOST).data
    )


def test_an_unknown_report_is_404_in_the_api_and_the_pages(client):
    for path in ("/api/conform/nope", "/conform/nope", "/conform/nope/other"):
        answer = client.get(path, headers=HOST)
        assert answer.status_code == 404, path
    assert client.get("/api/conform/nope", headers=HOST).get_json()["error"]["code"] == "no_report"
    answer = client.delete("/api/conform/nope", headers={**HOST, "X-Delete-Token": "t"})
    assert answer.status_code == 404


def test_the_conform_page_has_the_live_forms_fields_and_the_cases(client):
    html = client.get("/conform", headers=HOST).get_data(as_text=True)
    for testid in (
        "conform-form",
        "conform-preset",
        "conform-api",
        "conform-base-url",
        "conform-api-key",
        "conform-key-env",
        "conform-model",
        "conform-list-models",
        "conform-run",
        "conform-progress",
    ):
        assert f'data-testid="{testid}"' in html, testid
    apis = re.findall(r'<select name="api" [^>]*>(.*?)</select>', html, re.S)[0]
    assert re.findall(r'<option value="([a-z]+)"', apis) == [
        "chat",
        "responses",
        "completions",
        "anthropic",
    ]  # APIS order, those the battery speaks
    choices = re.findall(r'data-case="([a-z0-9-]+)" data-apis="([a-z ]+)"', html)
    assert ("n2", "chat completions") in choices
    assert ("plain", "chat anthropic responses completions") in choices
    assert "OPENAI_API_KEY" in html  # the server's key variables, each with its URL
    assert "js/conform.js" in html and "<script>" not in html
    # The live page still has its own fields, from the same template.
    live = client.get("/live", headers=HOST).get_data(as_text=True)
    assert 'data-testid="live-base-url"' in live and 'id="live-models"' in live


def stored_report(app, cases: list[dict], state: str = "done") -> tuple[str, str]:
    store = services_of(app).store
    record, token = store.add_report([c["case"] for c in cases], None)
    document = {
        "server": {"base_url": "http://h/v1", "api": "chat", "model": "m", "reached": True},
        "cases": cases,
        "summary": {"cases": len(cases), "pass": 1, "warn": 0, "fail": 1, "unsupported": 0},
    }
    store.update_report(record.id, state=state, document=document)
    return record.id, token


def entry(name, verdict, rules=(), why="ok", capture="/c/abc", run=None, shared=()):
    finding = {"severity": "error", "title": "t", "message": "m"}
    return {
        "case": name,
        "verdict": verdict,
        "why": why,
        "expects": "e",
        "findings": [{**finding, "rule": rule, **({"run": run} if run else {})} for rule in rules],
        "judges": [],
        "capture": capture,
        "shared": [{"url": url} for url in shared],
        "metrics": {"ttft_ms": 12.4, "itl_p50_ms": 2.0},
    }


def test_the_report_page_is_the_card_with_each_capture_at_its_first_finding(client):
    report, _ = stored_report(
        client.application,
        [
            entry("plain", "pass", why="<script>alert(1)</script>"),
            entry("n2", "fail", rules=["finish-reason-repeated", "done-missing"]),
            entry("tool-result-turn", "fail", rules=["done-missing"], run=2),
            entry("concurrent", "fail", rules=["done-missing"], run=2, shared=["/c/a", "/c/b"]),
            entry("bad-request", "pass", capture=None),
        ],
    )
    answer = client.get(f"/conform/{report}", headers=HOST)
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)" in html
    rows = re.findall(r'data-testid="conform-case" data-case="([a-z0-9-]+)"', html)
    assert rows == ["plain", "n2", "tool-result-turn", "concurrent", "bad-request"]
    links = re.findall(r'href="(/c/[^"]*)" data-testid="conform-capture"', html)
    # At the case's first finding, in the capture of the request it is in; when that capture
    # is not known, the first request's at its start.
    assert links == [
        "/c/abc",
        "/c/abc?finding=finish-reason-repeated",
        "/c/abc",
        "/c/b?finding=done-missing",
    ]
    assert 'href="/rules#done-missing"' in html
    assert "12 ms" in html
    api = client.get(f"/api/conform/{report}", headers=HOST).get_json()
    assert api["state"] == "done" and api["url"] == f"/conform/{report}"
    assert [c["case"] for c in api["report"]["cases"]] == rows
    assert "delete_token" not in api and "delete_hash" not in api


def test_delete_takes_the_token_in_the_header(client):
    report, token = stored_report(client.application, [entry("plain", "pass")])
    for headers in ({}, {"X-Delete-Token": "wrong"}):
        answer = client.delete(f"/api/conform/{report}", headers={**HOST, **headers})
        assert answer.status_code == 403
        assert answer.get_json()["error"]["code"] == "bad_token"
    answer = client.delete(f"/api/conform/{report}", headers={**HOST, "X-Delete-Token": token})
    assert answer.status_code == 204
    assert client.get(f"/api/conform/{report}", headers=HOST).status_code == 404


def test_the_comparison_page_shows_what_changed(client):
    a, _ = stored_report(
        client.application, [entry("plain", "pass"), entry("n2", "fail", rules=["done-missing"])]
    )
    b, _ = stored_report(
        client.application,
        [entry("plain", "fail", rules=["finish-reason-repeated"]), entry("long", "pass")],
    )
    html = client.get(f"/conform/{a}/{b}", headers=HOST).get_data(as_text=True)
    assert 'data-testid="conform-compare"' in html
    changes = re.findall(r'data-case="([a-z0-9-]+)" data-change="([a-z-]+)"', html)
    assert changes == [("plain", "worse"), ("n2", "only-a"), ("long", "only-b")]
    assert 'href="/rules#finish-reason-repeated"' in html
    assert "0 the same, 0 better, 1 worse" in html
