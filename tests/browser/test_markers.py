"""Issue 14, markers: through the API onto the seek bar, the chart and the chapter list, `?m=`
links, `[` and `]`, the owner's form, and automatic markers on a demo of every dialect."""

from __future__ import annotations

import json
import urllib.request

import pytest

from app.captures import read_capture
from app.demos import catalog, find

from .. import helpers
from .test_player import wait_until


def api(server, method: str, path: str, body: dict | None = None, token: str | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server.url + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Delete-Token", token)
    with urllib.request.urlopen(req, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def upload(server, name: str = "openai-gpt4o-tool-parallel.sse") -> dict:
    req = urllib.request.Request(
        server.url + "/api/captures?title=Markers",
        data=helpers.corpus(name),
        method="POST",
        headers={"Content-Type": "text/event-stream"},
    )
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.loads(response.read())


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('#player[data-markers="ready"]', state="attached", timeout=15000)


def marks(page, layer: str, kind: str) -> list[dict]:
    return page.eval_on_selector_all(
        f'.{layer} [data-testid="marker"][data-kind="{kind}"]',
        "els => els.map(e => ({id: e.dataset.markerId, label: e.title, left: parseFloat(e.style.left)}))",
    )


def player_time(page) -> float:
    return page.evaluate("window.streamscope.player.time()")


def test_markers_through_the_api_show_on_the_seek_bar_the_chart_and_in_links(page, server, shot):
    answer = upload(server)
    capture, token = answer["id"], answer["delete_token"]
    by_t = api(
        server,
        "POST",
        f"/api/captures/{capture}/markers",
        {"t": 0.5, "label": "Half a second", "note": "<b>not bold</b>"},
        token,
    )
    by_event = api(
        server,
        "POST",
        f"/api/captures/{capture}/markers",
        {"event": 5, "label": "<img src=x onerror=window.__xss=1>"},
        token,
    )
    open_page(page, f"{server.url}/c/{capture}")
    duration = page.evaluate("window.streamscope.timeline.duration")
    for layer in ("seek-markers", "chart-markers"):
        user = marks(page, layer, "user")
        assert {m["id"] for m in user} == {by_t["id"], by_event["id"]}, layer
        at_half = next(m for m in user if m["id"] == by_t["id"])
        assert at_half["left"] == pytest.approx(500 / duration * 100, abs=0.01)
    event_time = page.evaluate("window.streamscope.timeline.stream(0).events[5].time")
    labels = page.eval_on_selector_all(
        '[data-testid="chapter"][data-kind="user"] [data-testid="chapter-label"]',
        "els => els.map(e => e.textContent)",
    )
    assert set(labels) == {"Half a second", "<img src=x onerror=window.__xss=1>"}
    assert page.get_by_test_id("marker-note").first.text_content() == "<b>not bold</b>"
    assert page.evaluate("window.__xss") is None
    assert page.locator('[data-testid="chapter"] b, [data-testid="chapter"] img').count() == 0
    shot(page, "markers-list")
    href = page.locator(
        f'[data-testid="chapter"][data-marker-id="{by_event["id"]}"] [data-testid="marker-link"]'
    ).get_attribute("href")
    assert href.endswith(f"?m={by_event['id']}")
    second = page.context.new_page()
    open_page(second, href)
    assert player_time(second) == pytest.approx(event_time)
    assert (
        second.locator(f'[data-testid="chapter"][data-marker-id="{by_event["id"]}"]').get_attribute(
            "aria-current"
        )
        == "true"
    )
    cursor = second.evaluate("window.streamscope.player.cursor")
    assert cursor == second.evaluate(
        "window.streamscope.timeline.indexAtTime(window.streamscope.timeline.stream(0).events[5].time)"
    )
    second.close()


def test_brackets_jump_between_markers_in_time_order(page, server):
    answer = upload(server)
    api(
        server,
        "POST",
        f"/api/captures/{answer['id']}/markers",
        {"t": 0.3, "label": "early"},
        answer["delete_token"],
    )
    open_page(page, f"{server.url}/c/{answer['id']}")
    times = page.evaluate("window.streamscope.markers.markers.map(m => m.time)")
    assert len(times) >= 4 and times == sorted(times)
    page.keyboard.press("Home")
    visited = []
    for _ in range(len(times) + 1):
        page.keyboard.press("]")
        visited.append(player_time(page))
    distinct = sorted(set(times))
    assert sorted(set(visited)) == distinct
    assert visited[-1] == distinct[-1]  # past the last marker, ] stays
    page.keyboard.press("[")
    assert player_time(page) == distinct[-2]
    assert "Marker:" in page.get_by_test_id("player-status").text_content()


def test_the_owner_adds_and_removes_a_marker_in_the_page(page, server):
    answer = upload(server)
    page.goto(server.url + "/")
    entry = {
        "id": answer["id"],
        "title": "Markers",
        "url": answer["url"],
        "created": 0,
        "token": answer["delete_token"],
    }
    page.evaluate("e => localStorage.setItem('streamscope.captures', JSON.stringify([e]))", entry)
    open_page(page, f"{server.url}/c/{answer['id']}")
    form = page.get_by_test_id("marker-form")
    assert form.is_visible()
    page.get_by_test_id("player-step-forward").click()
    page.get_by_test_id("player-step-forward").click()
    moment = page.evaluate("Number(window.streamscope.player.moment().seconds)")
    page.get_by_test_id("marker-label").fill("Here it turns")
    page.get_by_test_id("marker-add").click()
    wait_until(page, "document.querySelectorAll('.seek-markers [data-kind=\"user\"]').length === 1")
    stored = api(server, "GET", f"/api/captures/{answer['id']}/markers")["markers"]
    assert [(m["label"], m["t"]) for m in stored] == [("Here it turns", moment)]
    page.get_by_test_id("marker-delete").click()
    wait_until(page, "document.querySelectorAll('.seek-markers [data-kind=\"user\"]').length === 0")
    assert api(server, "GET", f"/api/captures/{answer['id']}/markers")["markers"] == []


def test_a_visitor_gets_no_marker_form(page, server):
    answer = upload(server)
    open_page(page, f"{server.url}/c/{answer['id']}")
    assert not page.get_by_test_id("marker-form").is_visible()
    assert page.get_by_test_id("marker-delete").count() == 0


def one_demo_per_dialect() -> list[str]:
    chosen: dict[str, str] = {}
    for demo in catalog().values():
        chosen.setdefault(demo.dialect, demo.name)
    # The richer demos of a dialect where there are two: reasoning, an error, tool calls.
    return sorted(
        {
            *chosen.values(),
            "reasoning",
            "error-midstream",
            "tool-calls-parallel",
            "anthropic-thinking",
            "responses-reasoning",
        }
    )


def expected_auto_labels(name: str) -> list[str]:
    """What the automatic markers must say of a demo, from its timeline as Python reads it:
    first token, first reasoning token, each call's start and end, first error, finishes."""
    demo = find(name)
    capture = read_capture(demo.read_bytes(), None)
    labels = []
    several = len(capture.streams) > 1
    for stream in capture.streams:
        prefix = f"Stream {stream.index + 1}: " if several else ""
        kinds = [e.kind for e in stream.events]
        if any(e.kind in ("text", "refusal") and e.text for e in stream.events):
            labels.append(prefix + "First token")
        if any(e.kind == "reasoning" and e.text for e in stream.events):
            labels.append(prefix + "First reasoning token")
        starts = {(e.choice, e.call): e.name for e in stream.events if e.kind == "tool_start"}
        ends = {(e.choice, e.call): e for e in stream.events if e.kind == "tool_end"}
        labels += [f"{prefix}Tool call starts: {n or '(no name)'}" for n in starts.values()]
        labels += [
            f"{prefix}Tool call ends: {e.name or '(no name)'} ({e.status})"
            for e in {k: v for k, v in ends.items()}.values()
        ]
        if "error" in kinds:
            labels.append(prefix + "First error")
        finishes = {}
        for e in stream.events:
            if e.kind == "finish":
                finishes.setdefault(e.choice, e.reason)
        several_outputs = len(finishes) > 1
        for choice, reason in finishes.items():
            which = f" (output {choice})" if several_outputs else ""
            labels.append(f"{prefix}Finish{which}: {reason}")
        if not finishes and stream.events:
            labels.append(prefix + "End of stream")
    return sorted(labels)


@pytest.mark.parametrize("name", one_demo_per_dialect())
def test_automatic_markers_on_a_demo_of_every_dialect(page, server, name):
    open_page(page, f"{server.url}/demos/{name}")
    labels = page.eval_on_selector_all(
        '[data-testid="chapter"][data-kind="auto"] [data-testid="chapter-label"]',
        "els => els.map(e => e.textContent)",
    )
    assert sorted(
        label for label in labels if ": Stall" not in label and not label.startswith("Stall")
    ) == expected_auto_labels(name)
    assert len(marks(page, "seek-markers", "auto")) == len(labels)
    assert len(marks(page, "chart-markers", "auto")) == len(labels)
    stall_ms = page.evaluate("window.streamscope.timeline.capture.stall_ms")
    stalls = page.evaluate(
        f"window.streamscope.timeline.chunkMarks({stall_ms}).filter(m => m.stall).length"
    )
    assert sum("Stall" in label for label in labels) == stalls
