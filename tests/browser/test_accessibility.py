"""axe-core in Chromium on every kind of page (issue 28, item 27): no serious or critical
violation on the home page, the player (a demo at its start and at its end with a token's
logprobs open, an upload), compare, a presenter room, the embed and the proxy's page.

axe-core is axe-playwright-python's bundled copy (pinned in the test dependencies; MPL-2.0,
Deque Systems), run through the DevTools protocol, so the pages' CSP stays as it is served."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from ..helpers import corpus
from ..proxy_helpers import proxy_server
from .test_blocks import open_capture
from .test_player import open_demo, play_to_end
from .test_proxy_page import app_call
from .test_rooms import present_from

SERIOUS = ("serious", "critical")


def violations(page) -> list[str]:
    results = Axe().run(page).response
    found = [v for v in results["violations"] if v["impact"] in SERIOUS]
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])} nodes, e.g. {v['nodes'][0]['target']}"
        for v in found
    ]


def loaded(page) -> None:
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)


def test_home_page(page, server):
    page.goto(server.url + "/")
    assert violations(page) == []


def test_player_on_a_demo_at_its_start_and_at_its_end_with_logprobs_open(page, server):
    open_demo(page, server, "logprobs-top")
    assert violations(page) == []
    play_to_end(page)
    page.locator('[data-testid="token"].lp').nth(3).click()
    assert page.get_by_test_id("token-popover").is_visible()
    assert violations(page) == []


def test_player_on_an_upload(page, server):
    open_capture(page, server, corpus("openai-gpt4o-tool-parallel.sse"), "a11y")
    play_to_end(page)
    assert violations(page) == []


def test_the_findings_panel_with_a_finding_selected(page, server):
    """The findings panel (issue 29) on an upload whose tool-call fragments have no index,
    with the finding selected, and the rule catalogue its doc link opens."""
    open_capture(page, server, corpus("mistral-small-tool-call-no-index.sse"), "a11y findings")
    page.wait_for_selector('[data-testid="findings"][data-ready="true"]', state="attached")
    finding = page.locator('[data-testid="finding"][data-rule="tool-call-index-missing"]')
    finding.get_by_test_id("finding-select").click()
    assert finding.get_attribute("aria-current") == "true"
    assert violations(page) == []
    page.goto(server.url + "/rules#tool-call-index-missing")
    assert violations(page) == []


def test_compare(page, server):
    page.goto(server.url + "/compare/demos/plain-text/demos/anthropic-thinking")
    page.wait_for_selector("[data-testid=compare-side]", timeout=15000)
    assert violations(page) == []


def test_a_presenter_room(page, server):
    present_from(page, server, "/demos/logprobs-top")
    assert violations(page) == []


def test_the_embed(page, server):
    page.goto(server.url + "/embed/demos/logprobs-top")
    loaded(page)
    assert violations(page) == []


def test_the_live_page(page, server):
    page.goto(server.url + "/live")
    page.wait_for_load_state("networkidle")
    assert violations(page) == []


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, fake):
    server = proxy_server(tmp_path_factory.mktemp("a11y-proxy"), fake).start()
    yield server
    server.stop()


def test_the_proxy_page_with_a_call(page, proxied):
    app_call(proxied, "slow:3").join(30)
    page.goto(proxied.url + "/proxy")
    page.wait_for_selector("[data-testid=proxy-call]", timeout=15000)
    assert violations(page) == []
