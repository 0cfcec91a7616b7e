"""Presenter rooms in Chromium: a presenter and three viewers in one browser, each action
mirrored (play, pause, seek, speed, step, the selected token with its popover, the selected
tool call, the theme with high contrast, the text size), a late joiner, exploring alone and following again, a viewer's forged
presenter message refused, and Present on a demo, an upload and a live run."""

from __future__ import annotations

import json
import time
import urllib.request

from app.demos import find

from ..helpers import corpus
from ..test_api import upload
from .conftest import watch
from .test_player import wait_until

SNAPSHOT = """(() => {
  const s = window.streamscope;
  const popover = document.querySelector('[data-testid=token-popover]');
  return {
    state: s.player.state,
    cursor: s.player.state === 'playing' ? null : s.player.cursor,
    // Stopped, the time shown is the presenter's, to the ms (also paused mid-stall).
    time: s.player.state === 'playing' ? null : document.querySelector('[data-testid=player-time]').textContent,
    speed: s.player.speed,
    theme: document.documentElement.dataset.theme ?? null,
    zoom: document.documentElement.dataset.zoom ?? null,
    zoomControl: document.querySelector('[data-testid=player-zoom]').value,
    token: s.selection.span && s.selection.span.isConnected && s.selection.span.classList.contains('selected') ? s.selection.ref() : null,
    popover: popover.hidden ? null : popover.textContent,
    tools: [...document.querySelectorAll('[data-testid=tool-call].selected')].map(c => [c.closest('[data-testid=choice]').dataset.choice, c.dataset.call]),
  };
})()"""


def snapshot(page) -> dict:
    return page.evaluate(SNAPSHOT)


def joined(page, role: str) -> None:
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    wait_until(page, f"document.querySelector('[data-testid=room-bar]').dataset.role === '{role}'")
    wait_until(page, "document.querySelector('#player').dataset.roomApplied !== undefined")


def present_from(page, server, path: str) -> str:
    """Open a player page, press Present: the presenter's page. Returns the viewer link."""
    page.goto(server.url + path)
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.get_by_test_id("present").click()
    page.wait_for_url("**/r/**#key=*", timeout=15000)
    joined(page, "presenter")
    assert page.get_by_test_id("room-share").is_visible()
    link = page.get_by_test_id("room-viewer-link")
    assert "#" not in link.get_attribute("href") and "key" not in link.text_content()
    return link.get_attribute("href")


def open_viewers(context, server, link: str, n: int) -> list:
    viewers = []
    for _ in range(n):
        viewer = context.new_page()
        viewer.errors = watch(viewer)
        viewer.goto(server.url + link)
        joined(viewer, "viewer")
        viewers.append(viewer)
    return viewers


def seq(page) -> int:
    return int(page.evaluate("document.querySelector('#player').dataset.roomSeq || '0'"))


SETTLED = """(() => {
  const room = window.streamscope.room;
  return room.throttle.timer === false && room.throttle.pending === null;
})()"""


def act_and_check(presenter, viewers, action, *, following=None) -> dict:
    """Do `action` on the presenter's page; once its state has gone out (the presenter's own
    mirror came back, nothing waits to be sent) and every following viewer has shown the
    newest state, compare what each shows with the presenter's page."""
    before = seq(presenter)
    action()
    wait_until(
        presenter, f"Number(document.querySelector('#player').dataset.roomSeq || 0) > {before}"
    )
    pages = following if following is not None else viewers
    deadline = time.monotonic() + 10
    while True:
        expected, now = snapshot(presenter), seq(presenter)
        applied = [
            v.evaluate("document.querySelector('#player').dataset.roomApplied") for v in pages
        ]
        if (
            presenter.evaluate(SETTLED)
            and applied == [str(now)] * len(pages)
            and seq(presenter) == now
        ):
            break
        assert time.monotonic() < deadline, f"viewers did not follow: {applied}, presenter at {now}"
        presenter.wait_for_timeout(20)
    for viewer in pages:
        assert snapshot(viewer) == expected, (viewer.url, expected)
    return expected


def test_a_presenter_and_three_viewers_each_action_mirrored(page, context, server, shot):
    link = present_from(page, server, "/demos/logprobs-top")
    viewers = open_viewers(context, server, link, 3)
    steps = {
        "step": lambda: page.get_by_test_id("player-step-forward").click(),
        "step again": lambda: page.get_by_test_id("player-step-forward").click(),
        "seek": lambda: page.get_by_test_id("player-seek").fill("1500"),
        "step back": lambda: page.get_by_test_id("player-step-back").click(),
        "speed": lambda: page.get_by_test_id("player-speed").select_option("0.25"),
        "theme": lambda: page.get_by_test_id("theme-switch").select_option("dark"),
        "zoom": lambda: page.get_by_test_id("player-zoom").select_option("1.5"),
        "contrast": lambda: page.get_by_test_id("theme-switch").select_option("contrast"),
    }
    for name, action in steps.items():
        shown = act_and_check(page, viewers, action)
        assert shown["state"] == "paused", name
    assert shown["speed"] == 0.25 and shown["theme"] == "contrast"
    assert shown["zoom"] == "1.5" and shown["zoomControl"] == "1.5"
    # Play (from the start, at 0.25x: 12 s before the end): every viewer plays too; pause:
    # every viewer stops on the presenter's exact screen.
    act_and_check(page, viewers, lambda: page.get_by_test_id("player-start").click())
    playing = act_and_check(page, viewers, lambda: page.get_by_test_id("player-play").click())
    assert playing["state"] == "playing"
    page.wait_for_timeout(700)  # into the stall after the first events (logprobs-top at 0.25x)
    paused = act_and_check(page, viewers, lambda: page.get_by_test_id("player-play").click())
    assert paused["state"] == "paused"
    # The selected token, its popover open on every screen.
    ended = act_and_check(page, viewers, lambda: page.get_by_test_id("player-end").click())
    assert ended["state"] == "ended"
    shown = act_and_check(
        page, viewers, lambda: page.locator('[data-testid="token"].lp').nth(5).click()
    )
    assert shown["token"] == {"lane": "text", "choice": 0, "token": 5} and shown["popover"]
    for viewer in viewers:
        assert viewer.get_by_test_id("token-popover").is_visible()
        assert (
            viewer.get_by_test_id("alternative").count()
            == page.get_by_test_id("alternative").count()
        )
    shot(viewers[0], "room-viewer-token")
    closed = act_and_check(page, viewers, lambda: page.keyboard.press("Escape"))
    assert closed["token"] is None and closed["popover"] is None
    for viewer in viewers:
        assert viewer.get_by_test_id("room-bar").get_attribute("data-following") == "true"
        viewer.errors.check()


def test_tool_calls_late_joiners_exploring_alone_and_a_forged_message(page, context, server, shot):
    link = present_from(page, server, "/demos/tool-calls-parallel")
    viewers = open_viewers(context, server, link, 3)
    page.get_by_test_id("player-end").click()
    wait_until(page, "document.querySelector('#player').dataset.state === 'ended'")
    card = page.locator('[data-testid="tool-call"][data-call="1"] .tool-head')
    shown = act_and_check(page, viewers, lambda: card.click())
    assert shown["tools"] == [["0", "1"]]
    for viewer in viewers:
        assert (
            viewer.locator('[data-testid="tool-call"][data-call="1"]').get_attribute("aria-current")
            == "true"
        )
    act_and_check(page, viewers, lambda: page.get_by_test_id("theme-switch").select_option("light"))
    # A late joiner lands in the current state: the end, the second call selected, light.
    late = open_viewers(context, server, link, 1)[0]
    wait_until(late, f"document.querySelector('#player').dataset.roomApplied === '{seq(page)}'")
    assert snapshot(late) == snapshot(page)
    shot(late, "room-late-joiner")
    # One viewer explores alone: the presenter's moves no longer move it; following again
    # lands it where the presenter is.
    alone = viewers[0]
    alone.get_by_test_id("room-detach").click()
    assert alone.get_by_test_id("room-bar").get_attribute("data-following") == "false"
    assert alone.get_by_test_id("room-rejoin").is_visible()
    alone.get_by_test_id("player-step-back").click()
    mine = snapshot(alone)
    act_and_check(
        page, viewers, lambda: page.get_by_test_id("player-start").click(), following=viewers[1:]
    )
    assert snapshot(alone) == mine
    alone.get_by_test_id("room-rejoin").click()
    wait_until(
        alone, "document.querySelector('[data-testid=room-bar]').dataset.following === 'true'"
    )
    assert snapshot(alone) == snapshot(page)
    # Touching the transport while following is exploring alone too.
    viewers[1].get_by_test_id("player-end").click()
    assert viewers[1].get_by_test_id("room-bar").get_attribute("data-following") == "false"
    viewers[1].get_by_test_id("room-rejoin").click()
    # A viewer forges a presenter message from its page: refused, nothing mirrored anywhere.
    forger = viewers[2]
    before = seq(page)
    state = {
        "playing": False,
        "t": 0,
        "cursor": 3,
        "speed": 1,
        "token": None,
        "tool": None,
        "theme": "dark",
        "zoom": 3,
    }
    forger.evaluate(
        f"window.streamscope.send('present', {json.dumps({'key': 'forged', 'action': 'seek', 'state': state})})"
    )
    wait_until(forger, "!document.querySelector('[data-testid=player-alert]').hidden")
    assert "only the presenter" in forger.get_by_test_id("player-alert").text_content()
    page.wait_for_timeout(700)
    assert seq(page) == before
    for other in [page, *viewers[:2], late]:
        assert seq(other) == before
        assert other.evaluate("document.documentElement.dataset.theme") == "light"
        assert other.evaluate("document.documentElement.dataset.zoom") is None
    for viewer in [*viewers, late]:
        viewer.errors.check()


def test_present_on_an_upload_and_on_a_live_run(page, server, fake, context):
    status, answer = upload(
        server, corpus("openai-gpt4o-tool-parallel.sse"), title="Uploaded for a class"
    )
    assert status == 201
    link = present_from(page, server, f"/c/{answer['id']}")
    assert "Uploaded for a class" in page.get_by_test_id("player-title").text_content()
    viewer = open_viewers(context, server, link, 1)[0]
    act_and_check(page, [viewer], lambda: page.get_by_test_id("player-end").click())
    # The live page: Present waits for the run to end, then presents its recording.
    live = context.new_page()
    live.errors = watch(live)
    live.goto(server.url + "/live")
    assert live.get_by_test_id("present").is_disabled()
    live.get_by_test_id("live-base-url").fill(fake.url)
    live.get_by_test_id("live-model").fill("slow:4")
    live.get_by_test_id("live-api-key").fill("sk-browser-canary-0123456789")
    live.get_by_test_id("live-run").click()
    wait_until(live, "document.querySelector('#player').dataset.live === 'true'")
    assert live.get_by_test_id("present").is_disabled()
    wait_until(live, "document.querySelector('#player').dataset.endReason === 'done'")
    wait_until(live, "!document.querySelector('[data-testid=present]').disabled")
    recorded = live.get_by_test_id("choice-text").first.text_content()
    assert recorded.startswith("word0 word1")
    live.get_by_test_id("present").click()
    live.wait_for_url("**/r/**#key=*", timeout=15000)
    joined(live, "presenter")
    live.get_by_test_id("player-end").click()
    wait_until(live, "document.querySelector('#player').dataset.state === 'ended'")
    assert live.get_by_test_id("choice-text").first.text_content() == recorded
    live.errors.check()
    viewer.errors.check()


def test_markers_in_a_room_the_presenters_jumps_mirrored_a_viewers_own_is_exploring(
    page, context, server
):
    status, answer = upload(
        server, corpus("openai-gpt4o-tool-parallel.sse"), title="Markers for a class"
    )
    assert status == 201
    body = json.dumps({"t": 0.5, "label": "Look here"}).encode()
    request = urllib.request.Request(
        f"{server.url}/api/captures/{answer['id']}/markers",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "X-Delete-Token": answer["delete_token"]},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
    link = present_from(page, server, f"/c/{answer['id']}")
    viewers = open_viewers(context, server, link, 2)
    for member in [page, *viewers]:  # the capture's own markers, read only, on every screen
        wait_until(member, "document.querySelector('#player').dataset.markers === 'ready'")
        assert member.locator('.seek-markers [data-kind="user"]').count() == 1
        assert member.get_by_test_id("marker-form").is_hidden()
    page.get_by_test_id("player-start").click()
    shown = act_and_check(page, viewers, lambda: page.keyboard.press("]"))
    assert shown["state"] == "paused"
    # A viewer's own jump to a marker, by key or in the chapter list, is exploring alone.
    viewers[0].keyboard.press("]")
    assert viewers[0].get_by_test_id("room-bar").get_attribute("data-following") == "false"
    viewers[1].locator('[data-testid="chapter"][data-kind="user"] button').click()
    assert viewers[1].get_by_test_id("room-bar").get_attribute("data-following") == "false"
    for viewer in viewers:
        viewer.get_by_test_id("room-rejoin").click()
    act_and_check(page, viewers, lambda: page.keyboard.press("]"))
    for viewer in viewers:
        viewer.errors.check()


def test_a_marker_link_into_a_room_lands_where_the_presenter_is(page, context, server):
    status, answer = upload(server, find("plain-text").read_bytes(), title="Text for a class")
    assert status == 201
    link = present_from(page, server, f"/c/{answer['id']}")  # a capture: its markers load later
    act_and_check(page, [], lambda: page.get_by_test_id("player-end").click())
    viewer = context.new_page()
    viewer.errors = watch(viewer)
    viewer.goto(f"{server.url}{link}?m=auto-0-first-token")
    joined(viewer, "viewer")
    wait_until(viewer, "document.querySelector('#player').dataset.markers === 'ready'")
    wait_until(viewer, f"document.querySelector('#player').dataset.roomApplied === '{seq(page)}'")
    viewer.wait_for_timeout(300)  # a jump to the marker would come after the state
    assert snapshot(viewer) == snapshot(page)
    assert viewer.get_by_test_id("room-bar").get_attribute("data-following") == "true"
    assert "m=" not in viewer.url
    viewer.errors.check()
