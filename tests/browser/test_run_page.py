"""A run's page in Chromium (docs/runs.md): the openai SDK's two-turn tool loop through the
proxy, opened from the /proxy page's run link, is a waterfall of two calls (the first's tool
call named) with the app's time between them and the totals; a call opens in the player; the
page follows a run while it grows."""

from __future__ import annotations

import httpx
import pytest

from ..proxy_helpers import KEY, proxy_server
from ..test_proxy_runs import openai_loop, settled
from .test_player import wait_until

CALLS = "document.querySelectorAll('[data-testid=run-call]').length"


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, fake):
    server = proxy_server(tmp_path_factory.mktemp("run-page"), fake).start()
    yield server
    server.stop()


def test_the_tool_loop_is_one_waterfall_opened_from_the_proxy_page(page, proxied, shot):
    openai_loop(proxied)
    first, _ = settled(proxied, 2)
    page.goto(proxied.url + "/proxy")
    link = f"[data-testid=proxy-run-link][href='/proxy/runs/{first['run']}']"
    wait_until(page, f'document.querySelectorAll("{link}").length === 2')
    page.locator(link).first.click()
    page.wait_for_url(f"**/proxy/runs/{first['run']}")
    wait_until(page, f"{CALLS} === 2")
    waterfall = page.get_by_test_id("run-waterfall")
    assert waterfall.get_by_test_id("run-gap").count() == 1
    rows = waterfall.get_by_test_id("run-call")
    assert "get_weather" in rows.nth(0).get_by_test_id("run-call-tools").text_content()
    assert rows.nth(1).get_by_test_id("run-call-tools").count() == 0
    facts = rows.nth(0).get_by_test_id("run-call-facts").text_content()
    assert "stop tool_calls" in facts and "TTFT" in facts
    assert "stop stop" in rows.nth(1).get_by_test_id("run-call-facts").text_content()
    totals = page.get_by_test_id("run-totals")
    assert totals.locator("td[data-field=calls]").text_content() == "2"
    assert page.get_by_test_id("run-status").text_content() == "2 calls"
    # the bars are sized (through the CSSOM: the CSP allows no inline style)
    widths = page.evaluate(
        "[...document.querySelectorAll('.run-bar')].map((b) => b.getBoundingClientRect().width)"
    )
    assert len(widths) == 2 and all(w > 0 for w in widths)
    shot(page, "run-waterfall")
    rows.nth(0).get_by_test_id("run-call-link").click()
    page.wait_for_url(f"**/c/{first['recording']}")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)


def test_the_page_follows_a_run_while_it_grows(page, proxied):
    named = {"X-Streamscope-Run": "grows"}
    with httpx.Client(timeout=60) as client:
        answer = client.post(
            f"{proxied.url}/proxy/local/v1/chat/completions",
            json={"model": "slow:5", "stream": True, "messages": []},
            headers={"Authorization": f"Bearer {KEY}", **named},
        )
        assert answer.status_code == 200
    settled(proxied, 1)
    page.goto(proxied.url + "/proxy/runs/grows")
    wait_until(page, f"{CALLS} === 1")
    assert page.get_by_test_id("run-gap").count() == 0
    openai_loop(proxied, "Lima", **named)
    wait_until(page, f"{CALLS} === 3", timeout=15)
    assert page.get_by_test_id("run-gap").count() == 2
    wait_until(
        page,
        "document.querySelector('[data-testid=run-totals] td[data-field=calls]')"
        ".textContent === '3'",
    )
