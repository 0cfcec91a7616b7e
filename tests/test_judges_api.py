"""The client judges on a server (docs/judges.md, "On a server"): ``POST
/api/captures/<id>/judges`` runs them and keeps the verdicts with the capture (m009, on SQLite
and PostgreSQL), ``GET`` gives the kept verdicts or 404 ``no_verdicts``, runs are capped per
address and hour, and the page has the judges panel. A capture whose dialect no judge speaks
(Ollama's NDJSON) runs no client, so these tests do not depend on the clients; the real clients
run in test_judges_clients.py and the browser test."""

from __future__ import annotations

import pytest

from app.storage import NewCapture

from .helpers import corpus

HOST = {"Host": "127.0.0.1:5000"}


def stored(client, name: str) -> str:
    answer = client.post(
        "/api/captures",
        data=corpus(name),
        headers={
            **HOST,
            "Content-Type": "application/octet-stream",
            "X-Filename": name.split("/")[-1],
        },
    )
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["id"]


@pytest.fixture
def limited_app(tmp_path, monkeypatch):
    from app.web import create_app

    monkeypatch.setenv("STREAMSCOPE_JUDGES_PER_HOUR", "2")
    return create_app({"data_dir": str(tmp_path / "data")})


def test_verdicts_are_run_kept_and_read_back(limited_app):
    client = limited_app.test_client()
    capture_id = stored(client, "dialects/ollama-chat-llama3-text.ndjson")
    none = client.get(f"/api/captures/{capture_id}/judges", headers=HOST)
    assert none.status_code == 404 and none.get_json()["error"]["code"] == "no_verdicts"
    ran = client.post(f"/api/captures/{capture_id}/judges", headers=HOST)
    assert ran.status_code == 200 and ran.get_json() == {"streams": [[]]}
    kept = client.get(f"/api/captures/{capture_id}/judges", headers=HOST)
    assert kept.status_code == 200 and kept.get_json()["streams"] == [[]]
    assert isinstance(kept.get_json()["created"], float)


def test_runs_are_capped_per_address_and_hour(limited_app):
    client = limited_app.test_client()
    capture_id = stored(client, "dialects/ollama-chat-llama3-text.ndjson")
    url = f"/api/captures/{capture_id}/judges"
    assert [client.post(url, headers=HOST).status_code for _ in range(2)] == [200, 200]
    third = client.post(url, headers=HOST)
    assert third.status_code == 429
    assert third.get_json()["error"]["code"] == "too_many_judge_runs"
    other = client.post(url, headers=HOST, environ_base={"REMOTE_ADDR": "127.0.0.9"})
    assert other.status_code == 200  # another address has its own runs
    assert client.get(url, headers=HOST).status_code == 200  # reading is not a run


def test_a_missing_capture_is_404_json(client):
    for method in (client.get, client.post):
        answer = method("/api/captures/nope/judges", headers=HOST)
        assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "no_capture"


def test_the_run_limiter_forgets_runs_past_its_window():
    from app.web.http.judges import RunLimiter

    limiter = RunLimiter(2, window=10.0)
    assert limiter.take("a", now=0.0) is None and limiter.take("a", now=1.0) is None
    assert limiter.take("a", now=5.0) == pytest.approx(5.0)
    assert limiter.take("b", now=5.0) is None
    assert limiter.take("a", now=10.5) is None  # the first run has left the window


def test_the_store_keeps_the_last_runs_verdicts_with_the_capture(store):
    """m009 on both backends: a run replaces the last; a capture's verdicts go with it."""
    made, token = store.add(NewCapture(data=b"data: {}\n\n", title="t", format="sse", streams=1))
    assert store.judge_verdicts(made.id) is None
    verdict = {
        "client": "openai-python",
        "version": "1",
        "verdict": "ok",
        "field": None,
        "ours": None,
        "theirs": None,
        "error": None,
        "api": "chat.completions.stream",
    }
    store.remember_verdicts(made.id, [[verdict]])
    assert store.judge_verdicts(made.id)["streams"] == [[verdict]]
    store.remember_verdicts(made.id, [[{**verdict, "verdict": "crash"}], []])
    assert store.judge_verdicts(made.id)["streams"] == [[{**verdict, "verdict": "crash"}], []]
    store.remember_verdicts("gone", [[verdict]])  # no capture: nothing kept
    assert store.judge_verdicts("gone") is None
    assert store.delete(made.id, token)
    assert store.judge_verdicts(made.id) is None
    assert "m009_capture_judges" in [
        row[0] for row in store.execute("SELECT name FROM _migrations").fetchall()
    ]


def test_a_stored_captures_page_has_the_judges_panel_and_its_module(client):
    capture_id = stored(client, "openai-gpt4o-tool-single.sse")
    page = client.get(f"/c/{capture_id}", headers=HOST).get_data(as_text=True)
    assert 'data-testid="judges"' in page and f'data-id="{capture_id}"' in page
    assert "Which clients break on this?" in page
    assert "js/judges.js" in page
    embed = client.get(f"/embed/{capture_id}", headers=HOST).get_data(as_text=True)
    assert 'data-testid="judges"' not in embed


@pytest.mark.integration
def test_a_run_on_a_server_gives_the_real_clients_verdicts(tmp_path_factory):
    """The real judges behind the API: a chat stream every client reads, judged by the four
    chat judges, kept, and read back the same."""
    from app.web import create_app

    from . import judges_setup

    data = judges_setup.data_dir_with_judges(tmp_path_factory, "judges-api-data")
    client = create_app({"data_dir": str(data)}).test_client()
    capture_id = stored(client, "openai-gpt4o-tool-single.sse")
    ran = client.post(f"/api/captures/{capture_id}/judges", headers=HOST)
    assert ran.status_code == 200
    (verdicts,) = ran.get_json()["streams"]
    assert [(v["client"], v["verdict"]) for v in verdicts] == [
        ("openai-python", "ok"),
        ("langchain-openai", "ok"),
        ("@ai-sdk/openai", "ok"),
        ("@ai-sdk/openai-compatible", "ok"),
    ]
    kept = client.get(f"/api/captures/{capture_id}/judges", headers=HOST).get_json()
    assert kept["streams"] == [verdicts]
