"""The proxy page in Chromium (docs/proxy.md): a call an app makes through the recording proxy
appears while it streams, newest first, with its method, path, model, status, dialect, TTFT,
duration and tokens growing; opened, it plays in the player on the live edge, as a live run's
share link does, and ends there as the call ends."""

from __future__ import annotations

import threading

import httpx
import pytest

from ..proxy_helpers import KEY, proxy_server
from .conftest import watch
from .test_player import choice_texts, wait_until


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, fake):
    server = proxy_server(tmp_path_factory.mktemp("proxy-page"), fake).start()
    yield server
    server.stop()


def app_call(server, model: str) -> threading.Thread:
    """What an app does: one streamed call through the proxy, in the background."""

    def call() -> None:
        with httpx.Client(timeout=60) as client:
            answer = client.post(
                f"{server.url}/proxy/local/v1/chat/completions",
                json={"model": model, "stream": True, "messages": []},
                headers={"Authorization": f"Bearer {KEY}"},
            )
            assert answer.status_code == 200

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def cell(page, field: str) -> str:
    return page.locator(
        f'[data-testid="proxy-call"] >> nth=0 >> td[data-field="{field}"]'
    ).text_content()


def test_a_call_appears_while_it_streams_and_opens_in_the_player_on_the_live_edge(
    page, proxied, browser, shot
):
    page.goto(proxied.url + "/proxy")
    wait_until(
        page, "document.querySelector('[data-testid=proxy-status]').textContent === '0 calls'"
    )
    assert page.get_by_test_id("proxy-empty").is_visible()
    assert page.get_by_test_id("proxy-base-url").text_content() == f"{proxied.url}/proxy/local"
    first = app_call(proxied, "slow:5")
    first.join(timeout=30)
    call = app_call(proxied, "slow:60")  # a word every 100 ms: six seconds
    newest = "document.querySelector('[data-testid=proxy-call]')"
    wait_until(  # the list the page shows may be one poll old: wait for the new call's row
        page,
        f"{newest}?.querySelector('td[data-field=model]').textContent === 'slow:60'"
        f" && {newest}.dataset.state === 'streaming'"
        f" && Number({newest}.querySelector('td[data-field=tokens]').textContent) > 0",
    )
    assert page.locator('[data-testid="proxy-call"]').count() == 2  # newest first
    assert [cell(page, f) for f in ("method", "path", "model", "status", "dialect")] == [
        "POST",
        "/v1/chat/completions",
        "slow:60",
        "200",
        "chat-completions",
    ]
    assert cell(page, "ttft_ms").endswith("ms")
    tokens = int(cell(page, "tokens"))
    wait_until(
        page,
        f"Number(document.querySelector('[data-testid=proxy-call] td[data-field=tokens]').textContent) > {tokens}",
    )
    shot(page, "proxy-calls-streaming")
    # Opened from the list, the call plays on the live edge, in a second tab as a viewer would.
    href = page.locator('[data-testid="proxy-call-link"]').first.get_attribute("href")
    viewer = browser.new_context().new_page()
    errors = watch(viewer)
    viewer.goto(proxied.url + href)
    wait_until(viewer, "document.querySelector('#player').dataset.live === 'true'")
    wait_until(
        viewer,
        "(document.querySelector('[data-testid=choice-text]')?.textContent || '').includes('word1 ')",
    )
    seen = choice_texts(viewer)[0]
    assert "word59" not in seen, "it opened while the call streamed"
    wait_until(viewer, "document.querySelector('#player').dataset.endReason === 'done'", timeout=20)
    assert choice_texts(viewer) == ["".join(f"word{i} " for i in range(60))]
    shot(viewer, "proxy-call-in-player")
    errors.check()
    viewer.context.close()
    call.join(timeout=30)
    wait_until(page, "document.querySelector('[data-testid=proxy-call]').dataset.state === 'done'")
    assert cell(page, "tokens") == "60"


def test_no_page_of_streamscope_runs_a_script_the_proxy_relays(proxied, context):
    """Issue 26: a proxied ``application/javascript`` answer comes from Streamscope's own
    origin; a script element that pointed at it (an injection, were there one) must not run,
    while the page's own scripts from /static/ do. Before, ``script-src 'self'`` allowed it."""
    page = context.new_page()
    errors = watch(page)
    page.goto(f"{proxied.url}/demos/plain-text")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    blocked = page.evaluate(
        """() => new Promise((resolve) => {
            document.addEventListener("securitypolicyviolation", (e) => resolve(e.blockedURI));
            const script = document.createElement("script");
            script.src = "/proxy/local/v1/script.js";
            script.onload = () => resolve("loaded");
            document.head.append(script);
            setTimeout(() => resolve("timeout"), 5000);
        })"""
    )
    assert blocked.endswith("/proxy/local/v1/script.js"), blocked
    assert page.evaluate("() => window.proxiedScriptRan === undefined")
    errors.expect("Content Security Policy")  # the refusal the page reports
    errors.check()
