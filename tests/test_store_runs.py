"""Proxied calls' runs in the store (app/storage/runcalls.py, docs/runs.md "Across processes"):
kept with their capture, read back newest first per client and upstream, a run's calls oldest
first, a turn too large not kept, and gone with the capture; on SQLite and PostgreSQL; and a
kept turn reads back as the turn it was."""

from __future__ import annotations

import time

import pytest

from app.domain.callruns import Answer, ToolCall, Turn, continues, turn_json, turn_of
from app.domain.requests import read_request
from app.storage import NewCapture, open_store
from app.storage.runcalls import MAX_TURN


def capture(store) -> tuple[str, str]:
    record, token = store.add(
        NewCapture(title="t", format="timed", data=b"{}", streams=1, redacted=[], source="proxy")
    )
    return record.id, token


def check(store) -> None:
    (one, token), (two, _), (three, _) = capture(store), capture(store), capture(store)
    now = time.time()
    store.remember_run_call(one, "run-a", "k", now - 30, {"x": 1})
    store.remember_run_call(two, "run-a", "k", now - 20, None)
    store.remember_run_call(three, "run-b", "other", now - 10, {"x": "y" * MAX_TURN})
    store.remember_run_call("nope", "run-c", "k", now, {"x": 1})  # no such capture: nothing
    recent = store.recent_run_calls("k", now - 60, 10)
    assert [(r["capture_id"], r["run"], r["turn"]) for r in recent] == [
        (two, "run-a", None),
        (one, "run-a", {"x": 1}),
    ]
    assert [r["capture_id"] for r in store.recent_run_calls("k", now - 25, 10)] == [two]
    assert len(store.recent_run_calls("k", now - 60, 1)) == 1
    assert store.recent_run_calls("other", now - 60, 10)[0]["turn"] is None  # too large
    assert store.run_call_ids("run-a", 10) == [one, two]
    assert store.delete(one, token)
    assert store.run_call_ids("run-a", 10) == [two]


def test_sqlite(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        check(store)
    finally:
        store.close()


@pytest.mark.integration
def test_postgresql(postgres):
    store = open_store(postgres.url)
    try:
        check(store)
    finally:
        store.close()


def test_a_kept_turn_reads_back_as_it_was():
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
        ],
    }
    view = read_request(body, "chat-completions")
    answer = Answer("hm", (ToolCall("c1", "get_weather", '{"city":"Paris"}'),), "r1")
    kept = turn_of("cap", "run-1", 5.0, turn_json(Turn("cap", "run-1", view, answer, 5.0)))
    assert kept is not None
    assert kept.view.messages == view.messages and kept.view.dialect == "chat-completions"
    assert kept.answer == answer and (kept.call, kept.run, kept.at) == ("cap", "run-1", 5.0)
    later = read_request(
        {
            "model": "m",
            "messages": [
                *body["messages"],
                {
                    "role": "assistant",
                    "content": "hm",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "18C"},
            ],
        },
        "chat-completions",
    )
    assert continues(later, kept.view, kept.answer)
    assert turn_of("c", "r", 0.0, {"messages": [{"role": 3}]}) is None
    assert turn_of("c", "r", 0.0, "junk") is None
