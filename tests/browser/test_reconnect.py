"""A viewer whose connection drops reconnects by itself and resumes from the last event it
had: no duplicates, no gaps, and the page says it is reconnecting. The drops come from a
fault-injecting TCP proxy between the browser and the server."""

from __future__ import annotations

import json
import time

import pytest

from app.captures import read_capture
from app.demos import find
from app.domain.dialects.chat.assemble import assemble, plain

from ..fault_proxy import FaultProxy, Faults
from ..live_server import LiveServer
from ..wsclient import connect as ws_connect
from .test_player import choice_texts, wait_until


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The page reaches the server through the proxy, on the proxy's port: its Host is
    # 127.0.0.1:<proxy port>, listed here as an operator lists the name of a proxy in front
    # (docs/security.md, "Host header").
    env = {"STREAMSCOPE_ALLOWED_HOSTS": "127.0.0.1"}
    live = LiveServer(tmp_path_factory.mktemp("reconnect-data"), env=env).start()
    yield live
    live.stop()


def test_a_replay_cut_mid_load_resumes_without_gaps_or_duplicates(page, server):
    # The browser negotiates permessage-deflate, so the whole replay is a few KB on the wire.
    proxy = FaultProxy(
        server.port, Faults(reset_after=1_500, reset_connections=1, websocket_only=True)
    )
    try:
        page.goto(f"{proxy.url}/demos/plain-text")
        page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=20000)
        assert proxy.resets == 1
        assert page.get_attribute("#player", "data-reconnects") == "1"
        page.keyboard.press("End")
        expected = plain(assemble(read_capture(find("plain-text").read_bytes()).streams[0].events))
        assert choice_texts(page) == [expected["choices"][0]["message"]["content"]]
        seqs = page.evaluate("window.streamscope.timeline.events.map(e => e.seq)")
        assert seqs == list(range(len(seqs)))
    finally:
        proxy.stop()
    page.errors[:] = [e for e in page.errors if "WebSocket" not in e]  # the cut itself is logged


def test_a_live_follower_reconnects_and_follows_to_the_end(page, server, fake):
    starter = ws_connect(server.port)
    starter.send(
        json.dumps(
            {
                "type": "start",
                "base_url": fake.url,
                "body": {"model": "slow:40", "messages": [{"role": "user", "content": "hi"}]},
            }
        )
    )
    messages = []
    while not any(m.get("state") == "started" for m in messages):
        messages.append(json.loads(starter.receive(timeout=10)))
    capture_id = next(m for m in messages if m.get("state") == "started")["capture"]
    proxy = FaultProxy(server.port)
    try:
        page.goto(f"{proxy.url}/c/{capture_id}")
        wait_until(
            page,
            "(document.querySelector('[data-testid=choice-text]')?.textContent || '').includes('word5')",
        )
        proxy.drop_all()
        wait_until(
            page, "document.querySelector('#player').dataset.reconnecting === 'true'", timeout=5
        )
        assert "reconnecting" in page.get_by_test_id("player-status").text_content()
        wait_until(page, "document.querySelector('#player').dataset.reconnects === '1'", timeout=10)
        while messages[-1]["type"] != "end":
            messages.append(json.loads(starter.receive(timeout=15)))
        text = "".join(
            e["text"]
            for m in messages
            if m["type"] == "events"
            for e in m["events"]
            if e["kind"] == "text"
        )
        wait_until(
            page, "document.querySelector('#player').dataset.endReason === 'done'", timeout=15
        )
        assert choice_texts(page) == [text]
        assert text.startswith("word0 ") and text.endswith("word39 ")
        seqs = page.evaluate("window.streamscope.timeline.events.map(e => e.seq)")
        assert seqs == list(range(len(seqs)))
    finally:
        starter.close()
        proxy.stop()
    page.errors[:] = [e for e in page.errors if "WebSocket" not in e]
    time.sleep(0.1)
