"""Issue 15: the player page replays a stored capture over HTTP (its timeline document and raw
pages, docs/protocol.md "The timeline document") and opens no websocket for it; everything the
player does on a replay still works; a capture deleted before its timeline arrives says so."""

from __future__ import annotations

import json
import urllib.request

from app.demos import find
from app.domain.dialects.chat.assemble import assemble, plain

from .test_player import Schedule, choice_texts, demo_streams, play_to_end, wait_until


def upload_demo(server, name: str) -> dict:
    """A bundled demo's recording uploaded as a stored capture (the same bytes)."""
    req = urllib.request.Request(
        f"{server.url}/api/captures?title={name}",
        data=find(name).read_bytes(),
        method="POST",
        headers={"Content-Type": "application/octet-stream"},
    )
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.loads(response.read())


def open_over_http(page, server, capture_id: str) -> tuple[list[str], list[str]]:
    """Open the capture's page: the websockets it opened and the URLs it fetched."""
    sockets: list[str] = []
    fetched: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(f"{server.url}/c/{capture_id}")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    return sockets, fetched


def test_a_stored_capture_replays_over_http_without_a_websocket(page, server, shot):
    answer = upload_demo(server, "logprobs-top")
    sockets, fetched = open_over_http(page, server, answer["id"])
    assert any(f"/api/captures/{answer['id']}/timeline?v=" in url for url in fetched)
    streams = demo_streams("logprobs-top")
    expected = plain(assemble(streams[0].events))["choices"][0]["message"]["content"]
    # Seek, step and keys: the same cursor arithmetic as over the websocket.
    schedule = Schedule(streams[0])
    middle = round(schedule.times[-1] / 2)
    page.get_by_test_id("player-seek").fill(str(middle))
    cursor = schedule.at(middle)
    assert choice_texts(page) == [schedule.text(cursor)]
    page.get_by_test_id("player-step-forward").click()
    cursor = schedule.next(cursor)
    assert choice_texts(page) == [schedule.text(cursor)]
    page.keyboard.press("End")
    assert choice_texts(page) == [expected]
    # Speed and play.
    page.keyboard.press("Home")
    play_to_end(page)
    assert choice_texts(page) == [expected]
    # The logprobs popover.
    page.locator('[data-testid="token"].lp').nth(3).hover()
    popover = page.get_by_test_id("token-popover")
    popover.wait_for(state="visible")
    assert popover.get_by_test_id("alternative").count() == 5
    # The raw view: texts come in pages over HTTP; selecting a token highlights its chunk.
    token = page.locator('[data-testid="token"]').nth(10)
    word = token.text_content()
    token.click()
    selected = page.locator('[data-testid="raw-view"] li.selected')
    selected.wait_for(state="visible")
    chunk = selected.locator(".raw-text").text_content()
    assert '"logprobs"' in chunk and json.dumps(word)[1:-1] in chunk, (word, chunk)
    assert any(f"/api/captures/{answer['id']}/timeline/raw?v=" in url for url in fetched)
    # The raw filter reads the texts through in pages.
    page.get_by_test_id("raw-filter").fill("finish_reason")
    wait_until(page, "document.querySelectorAll('[data-testid=raw-view] li[data-raw]').length > 0")
    rows = page.eval_on_selector_all(
        '[data-testid="raw-view"] li[data-raw] .raw-text', "els => els.map(e => e.textContent)"
    )
    assert rows and all("finish_reason" in row for row in rows)
    shot(page, "http-replay")
    assert sockets == [], sockets


def test_tool_calls_markers_and_the_export_link_over_http(page, server):
    answer = upload_demo(server, "tool-calls-parallel")
    sockets, _ = open_over_http(page, server, answer["id"])
    page.wait_for_selector('#player[data-markers="ready"]', state="attached", timeout=15000)
    play_to_end(page)
    calls = plain(assemble(demo_streams("tool-calls-parallel")[0].events))["choices"][0]["message"][
        "tool_calls"
    ]
    cards = page.get_by_test_id("tool-call")
    assert cards.count() == len(calls) == 2
    for i, call in enumerate(calls):
        pretty = json.dumps(json.loads(call["function"]["arguments"]), indent=2, ensure_ascii=False)
        assert cards.nth(i).get_by_test_id("tool-pretty").text_content() == pretty
    # Automatic markers (the tool calls' starts) come from the timeline, however it arrived.
    assert page.locator('.seek-markers [data-testid="marker"]').count() >= 2
    # Exports are links to the server: one that answers.
    href = page.locator('a[href*="/player.html"]').first.get_attribute("href")
    with urllib.request.urlopen(f"{server.url}{href}", timeout=30) as response:
        assert response.status == 200
    assert sockets == [], sockets


def test_a_capture_deleted_before_its_timeline_arrives_says_so(page, server):
    answer = upload_demo(server, "plain-text")
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))

    def delete_then_fetch(route) -> None:
        # The page is there; the capture goes (its owner deleted it) before the timeline is
        # read: the real server answers the real request with 404.
        req = urllib.request.Request(
            f"{server.url}/api/captures/{answer['id']}",
            method="DELETE",
            headers={"X-Delete-Token": answer["delete_token"]},
        )
        with urllib.request.urlopen(req, timeout=30) as response:
            assert response.status == 204
        route.continue_()

    page.route("**/api/captures/*/timeline?v=*", delete_then_fetch)
    page.goto(f"{server.url}/c/{answer['id']}")
    page.wait_for_selector('#player[data-loaded="error"]', state="attached", timeout=15000)
    alert = page.get_by_test_id("player-alert")
    assert alert.is_visible()
    assert "this capture was deleted or has expired" in alert.text_content()
    assert (
        "this capture was deleted or has expired"
        in page.get_by_test_id("player-status").text_content()
    )
    assert sockets == []
    page.errors.expect("404")  # the browser logs the failed fetch


def test_a_second_visit_takes_the_timeline_from_the_browser_cache(page, server):
    answer = upload_demo(server, "plain-text")
    path = f'"path": "/api/captures/{answer["id"]}/timeline"'
    open_over_http(page, server, answer["id"])
    assert server.log().count(path) == 1
    page.goto(f"{server.url}/c/{answer['id']}")  # again: the page is asked for, the timeline not
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.keyboard.press("End")
    expected = plain(assemble(demo_streams("plain-text")[0].events))
    assert choice_texts(page) == [expected["choices"][0]["message"]["content"]]
    assert server.log().count(f'"path": "/c/{answer["id"]}"') == 2
    assert server.log().count(path) == 1
