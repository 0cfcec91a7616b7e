"""Uploads, the live page and the embed as a new user meets them (issue 11): a failed run's
recording shows how it ended (item 15), an upload opens the player by itself and an empty
file's error is said once (item 16), the live page says what is true now and shows an
upstream's error page as text (item 17), the embed shows dates (item 18)."""

from __future__ import annotations

import re
import socket

from app.captures.timed import end_line, header_line

from .. import helpers
from .test_live_page import fill_form
from .test_player import wait_until
from .test_share import upload_from_page, wait_loaded


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def refused_recording(port: int) -> bytes:
    """What `streamscope record` (or a live run) writes when the connection is refused."""
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    return header_line(
        created="2026-11-30T12:00:00Z", source={"url": url, "kind": "live"}, request={"model": "m"}
    ) + end_line(19.9, "error", f"connection refused by 127.0.0.1:{port}")


def test_a_refused_recording_uploads_and_says_how_it_ended(page, server, tmp_path):
    path = tmp_path / "refused.timed.jsonl"
    path.write_bytes(refused_recording(9))
    upload_from_page(page, server, path)
    alert = page.get_by_test_id("player-alert")
    assert alert.is_visible()
    assert alert.text_content() == (
        "The recording ended with an error: connection refused by 127.0.0.1:9"
    )
    assert page.get_by_test_id("player-status").text_content() == (
        "Recording ended: error: connection refused by 127.0.0.1:9"
    )


def test_the_shared_page_of_a_failed_live_run_shows_its_error(page, server):
    page.goto(server.url + "/live")
    status = page.get_by_test_id("player-status")
    assert status.text_content() == "No run yet: fill in the endpoint and press Run."
    port = closed_port()
    page.get_by_test_id("live-base-url").fill(f"http://127.0.0.1:{port}/v1")
    page.get_by_test_id("live-model").fill("m")
    page.get_by_test_id("live-run").click()
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'error'")
    assert "connection refused" in page.get_by_test_id("player-alert").text_content()
    share = page.get_by_test_id("live-share")
    wait_until(page, "document.querySelector('[data-testid=live-share-link]') !== null")
    assert share.text_content().startswith("Share the recording: ")
    link = page.get_by_test_id("live-share-link").get_attribute("href")
    page.goto(server.url + link)
    wait_loaded(page)
    assert "Ready: 0 raw events" not in page.get_by_test_id("player-status").text_content()
    assert page.get_by_test_id("player-alert").text_content() == (
        f"The recording ended with an error: connection refused by 127.0.0.1:{port}"
    )


def test_an_upload_opens_the_player_by_itself(page, server, tmp_path):
    path = tmp_path / "opened.sse"
    path.write_bytes(helpers.corpus("openai-gpt4o-length.sse"))
    page.goto(server.url + "/")
    page.get_by_test_id("upload-file").set_input_files(str(path))
    page.get_by_test_id("upload-submit").click()
    page.wait_for_url(re.compile(r"/c/[\w-]+$"), timeout=15000)
    wait_loaded(page)
    assert page.get_by_test_id("delete-token").text_content().startswith("Delete token")


def test_an_empty_file_is_refused_once(page, server, tmp_path):
    path = tmp_path / "empty.sse"
    path.write_bytes(b"")
    page.goto(server.url + "/")
    page.get_by_test_id("upload-file").set_input_files(str(path))
    page.get_by_test_id("upload-submit").click()
    wait_until(page, "document.getElementById('upload-result').dataset.state === 'error'")
    text = page.get_by_test_id("upload-result").text_content()
    assert text == "Not opened: not a stream: the file is empty (empty)"
    assert page.url == server.url + "/"
    page.errors.expect("status of 400")


def test_an_upstream_error_page_is_shown_as_text_with_its_body_behind_a_toggle(page, server, fake):
    fill_form(page, server, fake, "html")
    # The models list from an "upstream" that answers with an HTML 404 page (Streamscope itself).
    page.get_by_test_id("live-base-url").fill(server.url + "/no-such-api/v1")
    page.get_by_test_id("live-list-models").click()
    models_error = page.get_by_test_id("live-models-error")
    models_error.wait_for(state="visible")
    assert (
        models_error.locator('[data-problem="message"]')
        .text_content()
        .startswith("Models: HTTP 404 from 127.0.0.1")
    )
    assert "<" not in models_error.locator('[data-problem="message"]').text_content()
    assert models_error.locator("details pre").count() == 1
    assert not models_error.locator("details pre").is_visible()
    page.errors.expect("status of 400")
    # A run against a fake upstream that answers 502 with an HTML page.
    page.get_by_test_id("live-base-url").fill(fake.url)
    page.get_by_test_id("live-run").click()
    assert not models_error.is_visible(), "the models error is about an earlier request"
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'error'", timeout=15)
    status = page.get_by_test_id("player-status").text_content()
    # The server names an HTML answer by its status (and title, when it has one), never pastes it.
    assert status == "Recording ended: error: HTTP 502 from upstream: an HTML page, not a stream"
    alert = page.get_by_test_id("player-alert")
    assert "<" not in alert.text_content()
    assert alert.locator("h1, script").count() == 0  # text, never markup
    assert page.get_by_test_id("live-share").text_content().startswith("Share the recording")
    # The raw view shows the one raw event's text (it stayed "loading" before).
    raw = page.locator('[data-testid="raw-view"] .raw-list li')
    wait_until(page, "!document.querySelector('[data-testid=raw-view] li.loading')", timeout=5)
    assert raw.count() == 1 and "502 Bad Gateway" in raw.text_content()


def test_the_models_error_shows_status_title_and_body_as_text(page, server, fake):
    """The real /api/models error for an upstream that answers an HTML 404 page (docs/live.md):
    message, status, type and title shown; the page itself behind a toggle, as text only."""
    page.goto(server.url + "/live")
    page.get_by_test_id("live-base-url").fill(fake.url + "/html404/v1")
    page.get_by_test_id("live-list-models").click()
    box = page.get_by_test_id("live-models-error")
    box.wait_for(state="visible")
    page.errors.expect("status of 400")
    assert box.locator('[data-problem="facts"]').text_content() == (
        " (HTTP 404, text/html; charset=utf-8, page title “Not Found”)"
    )
    box.locator("summary").click()
    body = box.locator("pre").text_content()
    assert body.startswith("<!DOCTYPE html><html><head><title>")
    assert "<script>alert(1)</script>" in body  # shown as text, never as markup
    assert box.locator("script").count() == 0


def test_the_embed_shows_dates_not_unix_timestamps(page, server, tmp_path):
    path = tmp_path / "dated.sse"
    path.write_bytes(helpers.corpus("openai-gpt4o-tool-single.sse"))
    href = upload_from_page(page, server, path)
    page.goto(href.replace("/c/", "/embed/"))
    wait_loaded(page)
    info = page.get_by_test_id("capture-info").text_content()
    assert not re.search(r"\b\d{9,}\b", info), info
    assert re.search(r"uploaded \d{2} \w{3} 20\d\d, \d{2}:\d{2} UTC", info), info
    stamp = page.locator('[data-testid="capture-info"] time').first.get_attribute("datetime")
    assert re.fullmatch(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)


def test_the_ready_line_and_the_raw_view_count_the_same_raw_events(page, server):
    """Issue 28, item 21: "Ready: 28 events." above "events 1-26 of 26": the ready line says
    the raw events the raw view counts, and names the timeline events as what differs."""
    from .test_player import open_demo

    open_demo(page, server, "tool-calls-parallel")
    wait_until(
        page,
        "document.querySelector('[data-testid=player-status]').textContent.startsWith('Ready')",
    )
    ready = page.get_by_test_id("player-status").text_content()
    found = re.fullmatch(r"Ready: (\d+) raw events, read as (\d+) timeline events\.", ready)
    assert found, ready
    page.get_by_test_id("raw-view").scroll_into_view_if_needed()
    wait_until(page, "/of \\d+$/.test(document.querySelector('.raw-range').textContent)")
    shown = page.locator('[data-testid="raw-view"] .raw-range').text_content()
    assert shown.endswith(f"raw events 1\u2013{found[1]} of {found[1]}"), shown
    assert found[1] != found[2]  # two counts, each named


# Issue 28, item 23: the live page has one h1; on a phone every checkbox and chart flag is a
# 44 px target (WCAG 2.5.5).
PHONE = {"width": 390, "height": 844}
SMALL_TARGETS = """(selector) => {
  const small = [];
  for (const node of document.querySelectorAll(selector)) {
    if (!node.getClientRects().length) continue;  // not shown
    const label = node.closest('label');
    const box = (label ?? node).getBoundingClientRect();
    const name = `${node.dataset.testid ?? node.name ?? node.className}`;
    if (label) {  // a checkbox's target is its label: 44 px at least, and on top
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      if (box.width < 44 || box.height < 44 || !label.contains(hit)) small.push(`${name} ${Math.round(box.width)}x${Math.round(box.height)}`);
      continue;
    }
    // A flag: every point of a 44 px square below its top centre reaches a flag.
    const cx = box.left + box.width / 2;
    for (const [dx, dy] of [[-20, 2], [20, 2], [-20, 42], [20, 42], [0, 22]]) {
      const hit = document.elementFromPoint(cx + dx, box.top + dy);
      if (!hit || !hit.closest('.marker-flag')) { small.push(`${name} ${Math.round(box.width)}x${Math.round(box.height)} at ${dx},${dy}`); break; }
    }
  }
  return small;
}"""


def test_the_live_page_has_one_h1(page, server):
    page.goto(server.url + "/live")
    page.wait_for_selector("#live-form", timeout=15000)
    assert page.locator("h1").count() == 1
    assert page.locator("h1").text_content() == "Watch an endpoint stream"


def test_phone_checkboxes_and_chart_flags_are_44px_targets(browser, server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(server.url + "/live")
    page.wait_for_selector("#live-form", timeout=15000)
    for box in page.locator('input[type="checkbox"]').all():
        if box.is_visible():
            box.scroll_into_view_if_needed()
            assert page.evaluate(SMALL_TARGETS, f'input[name="{box.get_attribute("name")}"]') == []
    page.goto(server.url + "/demos/tool-calls-parallel")
    page.wait_for_selector('#player[data-markers="ready"]', state="attached", timeout=15000)
    for testid in ("player-loop", "toggle-whitespace"):
        page.get_by_test_id(testid).scroll_into_view_if_needed()
        assert page.evaluate(SMALL_TARGETS, f'[data-testid="{testid}"]') == []
    flags = page.locator(".marker-flag")
    assert flags.count() > 0
    flags.first.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, -100)")
    assert page.evaluate(SMALL_TARGETS, ".marker-flag") == []
    context.close()


def test_a_capture_of_no_known_dialect_says_so_first(page, server, tmp_path):
    path = tmp_path / "vercel.sse"
    path.write_bytes(
        b'data: {"type":"start","messageId":"m1"}\n\n'
        b'data: {"type":"text-delta","id":"t1","delta":"Hi"}\n\n'
        b'data: {"type":"finish"}\n\ndata: [DONE]\n\n'
    )
    upload_from_page(page, server, path)
    wait_loaded(page)
    status = page.get_by_test_id("player-status").text_content()
    assert status.startswith("Not read: no known dialect sends these payloads"), status
    assert "Vercel AI SDK UI message stream" in status and "Ready: " in status
