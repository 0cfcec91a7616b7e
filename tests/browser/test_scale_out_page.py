"""The page of a viewer on another process than the run's (docs/scaling.md): it follows the
live edge through Redis, says so when Redis goes away and it follows the stored recording,
says so again when Redis is back, and ends with the whole text."""

from __future__ import annotations

import json

import pytest

from ..live_server import LiveServer
from ..postgres_server import PostgresServer, binaries
from ..redis_server import RedisServer, binary
from ..wsclient import connect as ws_connect
from .test_player import choice_texts, wait_until

STATUS = "document.querySelector('[data-testid=player-status]').textContent"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    if binaries() is None or binary() is None:
        pytest.skip("PostgreSQL or redis-server is not installed (the README's test command does)")
    postgres = PostgresServer().start()
    redis_server = RedisServer().start()
    env = {"STREAMSCOPE_DATABASE_URL": postgres.url, "STREAMSCOPE_REDIS_URL": redis_server.url}
    servers = [LiveServer(tmp_path_factory.mktemp(n), env=env).start() for n in ("a", "b")]
    yield servers, redis_server
    for server in servers:
        server.stop()
    redis_server.stop()
    postgres.stop()


def test_a_viewer_on_the_other_process_is_told_of_the_fallback_and_gets_everything(
    page, pair, fake
):
    (a, b), redis_server = pair
    starter = ws_connect(a.port)
    body = {"model": "slow:50", "messages": [{"role": "user", "content": "hi"}]}
    starter.send(json.dumps({"type": "start", "base_url": fake.url, "body": body}))
    messages: list[dict] = []
    while not any(m.get("state") == "started" for m in messages):
        messages.append(json.loads(starter.receive(timeout=10)))
    capture_id = next(m for m in messages if m.get("state") == "started")["capture"]
    try:
        page.goto(f"{b.url}/c/{capture_id}")
        text = "(document.querySelector('[data-testid=choice-text]')?.textContent || '')"
        wait_until(page, f"{text}.includes('word3')", timeout=20)
        redis_server.kill()
        wait_until(page, f"{STATUS}.includes('Redis is unreachable')", timeout=10)
        assert page.get_attribute("[data-testid=player-status]", "data-kind") == "warning"
        redis_server.start()
        wait_until(page, f"{STATUS}.includes('Redis is back')", timeout=10)
        page.wait_for_selector('#player[data-end-reason="done"]', state="attached", timeout=30000)
    finally:
        starter.close()
        if redis_server.process is None or redis_server.process.poll() is not None:
            redis_server.start()
    page.keyboard.press("End")
    assert choice_texts(page) == ["".join(f"word{i} " for i in range(50))]
    seqs = page.evaluate("window.streamscope.timeline.events.map(e => e.seq)")
    assert seqs == list(range(len(seqs)))
