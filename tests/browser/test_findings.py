"""Findings in Chromium (issue 29, "Where findings show"): an uploaded capture whose tool-call
fragments have no ``index`` shows the finding in the panel (its rule and severity as data
attributes, its title and message as text, a link to its rule's entry), a mark on the seek bar
and on the chart (``data-kind=finding``); selecting it, by mouse or keyboard, seeks to its raw
event and selects that event in the raw view; ``?finding=<rule>`` opens the page with it
selected; a proxied call followed live gets its findings while it streams, and ``/proxy``
lists their count."""

from __future__ import annotations

import threading

import httpx
import pytest

from ..helpers import corpus
from ..proxy_helpers import KEY, proxy_server
from .conftest import watch
from .test_blocks import open_capture
from .test_player import wait_until

RULE = "tool-call-index-missing"
CAPTURE = "mistral-small-tool-call-no-index.sse"  # its second event's fragment has no index
FINDING = f'[data-testid="finding"][data-rule="{RULE}"]'
SELECTED_RAW = '[data-testid="raw-view"] li[data-raw="1"].selected'


def ready(page) -> None:
    page.wait_for_selector('[data-testid="findings"][data-ready="true"]', state="attached")


def test_an_upload_shows_its_finding_its_marks_and_selects_its_raw_event(page, server):
    open_capture(page, server, corpus(CAPTURE), "tool calls without index")
    ready(page)
    panel = page.get_by_test_id("findings")
    assert panel.is_visible()
    finding = page.locator(FINDING)
    assert finding.count() == 1
    assert finding.get_attribute("data-severity") == "error"
    assert finding.get_attribute("data-raw") == "1"
    assert finding.get_by_test_id("finding-title").text_content() == (
        "tool-call fragment without index"
    )
    assert "without an index" in finding.get_by_test_id("finding-message").text_content()
    assert finding.get_by_test_id("finding-doc").get_attribute("href") == f"/rules#{RULE}"
    link = finding.get_by_test_id("finding-link").get_attribute("href")
    assert f"finding={RULE}" in link
    # A mark on the seek bar and one on the chart, each data-kind=finding.
    assert page.locator(f'.seek-track [data-kind="finding"][data-rule="{RULE}"]').count() == 1
    assert page.locator(f'.chart-box [data-kind="finding"][data-rule="{RULE}"]').count() == 1
    assert page.locator(SELECTED_RAW).count() == 0
    finding.get_by_test_id("finding-select").click()
    page.wait_for_selector(SELECTED_RAW, state="attached")
    assert finding.get_attribute("aria-current") == "true"
    assert page.locator("#player").get_attribute("data-state") == "paused"
    # The player is at the finding's event: its raw event's events are on screen.
    on_screen = page.evaluate("window.streamscope.player.cursor")
    events = page.evaluate("window.streamscope.timeline.events.map(e => e.raw)")
    assert 1 in events[:on_screen]


def test_the_keyboard_selects_a_finding(page, server):
    open_capture(page, server, corpus(CAPTURE), "keyboard")
    ready(page)
    button = page.locator(FINDING).get_by_test_id("finding-select")
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(SELECTED_RAW, state="attached")
    assert page.locator(FINDING).get_attribute("aria-current") == "true"


def test_a_link_with_finding_opens_the_page_with_it_selected(page, server):
    open_capture(page, server, corpus(CAPTURE), "linked")
    ready(page)
    href = page.locator(FINDING).get_by_test_id("finding-link").get_attribute("href")
    page.goto(href)
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    ready(page)
    page.wait_for_selector(SELECTED_RAW, state="attached")
    assert page.locator(FINDING).get_attribute("aria-current") == "true"
    # The doc link opens the rule's entry.
    page.locator(FINDING).get_by_test_id("finding-doc").click()
    page.wait_for_url(f"**/rules#{RULE}")
    assert page.locator(f'#{RULE}[data-testid="rule"]').is_visible()


def test_a_capture_without_findings_says_so(page, server):
    open_capture(page, server, corpus("openai-gpt4o-tool-parallel.sse"), "clean")
    ready(page)
    assert page.locator(FINDING).count() == 0


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, fake):
    server = proxy_server(tmp_path_factory.mktemp("findings-proxy"), fake).start()
    yield server
    server.stop()


def slow_replay(server, gap_ms: int) -> threading.Thread:
    """An app's streamed call through the proxy: the capture, one event every ``gap_ms``."""

    def call() -> None:
        with httpx.Client(timeout=60) as client:
            answer = client.post(
                f"{server.url}/proxy/local/v1/chat/completions",
                json={"model": f"replay:{CAPTURE}", "stream": True, "messages": []},
                headers={"Authorization": f"Bearer {KEY}", "X-Gap-Ms": str(gap_ms)},
            )
            assert answer.status_code == 200

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def test_a_proxied_call_followed_live_gets_findings_as_they_happen(page, proxied, browser):
    page.goto(proxied.url + "/proxy")
    call = slow_replay(proxied, 2500)
    newest = "document.querySelector('[data-testid=proxy-call]')"
    wait_until(page, f"{newest}?.dataset.state === 'streaming'", timeout=15)
    href = page.locator('[data-testid="proxy-call-link"]').first.get_attribute("href")
    viewer = browser.new_context().new_page()
    errors = watch(viewer)
    viewer.goto(proxied.url + href)
    wait_until(viewer, "document.querySelector('#player').dataset.live === 'true'")
    # While the call still streams, its findings so far arrive (not yet final).
    wait_until(viewer, f"!!document.querySelector('{FINDING}')", timeout=15)
    assert viewer.locator("#player").get_attribute("data-end-reason") is None
    assert viewer.get_by_test_id("findings").get_attribute("data-final") == "false"
    assert viewer.locator(f'.seek-track [data-kind="finding"][data-rule="{RULE}"]').count() == 1
    wait_until(viewer, "document.querySelector('#player').dataset.endReason === 'done'", timeout=20)
    assert viewer.get_by_test_id("findings").get_attribute("data-final") == "true"
    assert viewer.locator(FINDING).count() == 1
    errors.check()
    viewer.context.close()
    call.join(timeout=30)
    # The list counts the call's findings (at least this rule's, as error).
    wait_until(page, f"{newest}.dataset.state === 'done'", timeout=15)
    cell = page.locator('[data-testid="proxy-call"] >> nth=0 >> td[data-field="findings"]')
    wait_until(
        page,
        f"Number({newest}.querySelector('td[data-field=findings]').textContent) >= 1",
    )
    assert int(cell.get_attribute("data-errors")) >= 1


def test_a_live_run_shows_findings_as_they_happen(page, server, fake):
    page.goto(server.url + "/live")
    page.get_by_test_id("live-base-url").fill(fake.url)
    page.get_by_test_id("live-model").fill(f"replay:{CAPTURE}")
    page.get_by_test_id("live-api-key").fill("sk-browser-canary-0123456789")
    headers = page.locator('textarea[name="extra_headers"]')
    if not headers.is_visible():  # in a folded part of the form
        page.locator("details:has(textarea[name=extra_headers]) > summary").first.click()
    headers.fill('{"X-Gap-Ms": "2500"}')
    page.get_by_test_id("live-run").click()
    wait_until(page, "document.querySelector('#player').dataset.state === 'live'")
    wait_until(page, f"!!document.querySelector('{FINDING}')", timeout=15)
    assert page.locator("#player").get_attribute("data-end-reason") is None
    assert page.get_by_test_id("findings").get_attribute("data-final") == "false"
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'done'", timeout=20)
    assert page.get_by_test_id("findings").get_attribute("data-final") == "true"
    assert page.locator(FINDING).get_attribute("data-severity") == "error"
