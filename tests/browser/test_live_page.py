"""The live page in Chromium against the fake upstream: fill the form, watch tokens arrive,
stop midway, follow from a second browser, replay the recording."""

from __future__ import annotations

import json
import time

from .conftest import watch
from .test_player import choice_texts, wait_until


def preview_text(page) -> str:
    """The request preview once the server has said what the run would send."""
    wait_until(
        page, "document.querySelector('[data-testid=live-preview]').dataset.state === 'ready'"
    )
    return page.get_by_test_id("live-preview").text_content()


def fill_form(page, server, fake, model: str) -> None:
    page.goto(server.url + "/live")
    page.get_by_test_id("live-base-url").fill(fake.url)
    page.get_by_test_id("live-model").fill(model)
    page.get_by_test_id("live-api-key").fill("sk-browser-canary-0123456789")


def test_run_watch_live_stop_midway_and_replay(page, server, fake, browser, shot):
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    fill_form(page, server, fake, "slow:80")
    preview = preview_text(page)
    assert (
        "Authorization: Bearer sk-…6789" in preview
        and "sk-browser-canary-0123456789" not in preview
    )
    assert '"stream": true' in preview
    page.get_by_test_id("live-run").click()
    wait_until(page, "document.querySelector('#player').dataset.state === 'live'")
    wait_until(
        page,
        "(document.querySelector('[data-testid=choice-text]')?.textContent || '').includes('word3')",
    )
    first = choice_texts(page)[0]
    time.sleep(0.5)
    assert len(choice_texts(page)[0]) > len(first), "tokens should keep arriving live"
    shot(page, "live-streaming")
    # Someone follows the share link from another browser while it streams.
    link = page.get_by_test_id("live-share-link").get_attribute("href")
    other = browser.new_context()
    follower = other.new_page()
    errors = watch(follower)
    follower.goto(server.url + link)
    wait_until(follower, "document.querySelector('#player').dataset.live === 'true'")
    wait_until(
        follower,
        "(document.querySelector('[data-testid=choice-text]')?.textContent || '').length > 0",
    )
    # Stop midway: the upstream sees its connection closed within a second.
    stopped_at = time.monotonic()
    # force: skip Playwright's wait for a still layout (the page keeps growing while it streams)
    page.get_by_test_id("live-stop").click(force=True)
    clicked_at = time.monotonic()
    how, when = fake.wait_end("slow:80")
    assert how == "closed" and when - stopped_at < 1.0, (clicked_at - stopped_at, when - stopped_at)
    # The Stop carries the run's delete token, so a page resumed on another process stops it too.
    stops = [json.loads(f) for f in sent if isinstance(f, str) and '"stop"' in f]
    tokens = page.evaluate(
        "JSON.parse(localStorage.getItem('streamscope.captures') || '[]').map((c) => c.token)"
    )
    assert stops and stops[0].get("delete_token") in tokens, (stops, tokens)
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'cancelled'")
    assert "cancelled" in page.get_by_test_id("player-status").text_content()
    assert page.get_by_test_id("finish-reason").text_content() == "finish: none"
    final = choice_texts(page)[0]
    assert final.startswith("word0 word1") and "word79" not in final
    shot(page, "live-stopped")
    wait_until(follower, "document.querySelector('#player').dataset.endReason === 'cancelled'")
    assert choice_texts(follower) == [final]
    errors.check()
    other.close()
    # The recording replays like any capture, with its timing.
    page.goto(server.url + link)
    page.wait_for_selector('#player[data-loaded="true"]', state="attached")
    assert page.get_by_test_id("capture-format").text_content().startswith("format: timed")
    page.get_by_test_id("player-speed").select_option("max")
    page.get_by_test_id("player-play").click()
    page.wait_for_selector('#player[data-state="ended"]', state="attached")
    assert choice_texts(page) == [final]
    assert (
        page.locator('[data-testid="metrics"] [data-metric="ttft_ms"]').get_attribute("data-value")
        != ""
    )
    shot(page, "live-recording-replayed")


def test_a_fault_is_shown_in_the_page(page, server, fake):
    fill_form(page, server, fake, "html")
    page.get_by_test_id("live-run").click()
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'error'", timeout=15)
    assert "an HTML page" in page.get_by_test_id("player-status").text_content()
    # the page shows the upstream's HTML as text, and runs none of it
    assert (
        page.evaluate("document.querySelectorAll('#player h1 + p script, .stream script').length")
        == 0
    )


def test_models_button_fills_the_list(page, server, fake):
    fill_form(page, server, fake, "")
    page.get_by_test_id("live-list-models").click()
    wait_until(page, "document.querySelectorAll('#live-models option').length > 0")
    assert "fake-small" in page.evaluate(
        "[...document.querySelectorAll('#live-models option')].map(o => o.value)"
    )


def test_settings_are_remembered_but_never_the_key(page, server, fake):
    fill_form(page, server, fake, "slow:3")
    page.locator('input[name="temperature"]').fill("0.7")
    page.reload()
    assert page.get_by_test_id("live-base-url").input_value() == fake.url
    assert page.get_by_test_id("live-model").input_value() == "slow:3"
    assert page.locator('input[name="temperature"]').input_value() == "0.7"
    assert page.get_by_test_id("live-api-key").input_value() == ""
    assert "sk-browser-canary" not in page.evaluate("JSON.stringify(localStorage)")


def test_a_server_key_pins_its_base_url_and_runs_from_the_page(page, fake, tmp_path):
    from ..live_server import LiveServer

    key = "sk-page-server-key-0123456789abcdef"
    env = {"PAGE_KEY": key, "STREAMSCOPE_API_KEYS": f"PAGE_KEY={fake.url}"}
    server = LiveServer(tmp_path / "keyed", env=env).start()
    try:
        page.goto(server.url + "/live")
        base_url = page.get_by_test_id("live-base-url")
        base_url.fill("http://127.0.0.1:9/v1")
        page.get_by_test_id("live-model").fill("slow:3")
        page.get_by_test_id("live-key-env").select_option("PAGE_KEY")
        assert base_url.input_value() == fake.url and base_url.evaluate("e => e.readOnly")
        preview = preview_text(page)
        assert "$PAGE_KEY" in preview and key not in preview
        page.get_by_test_id("live-preset").select_option(label="vLLM (localhost:8000)")
        assert page.get_by_test_id("live-key-env").input_value() == ""
        assert not base_url.evaluate("e => e.readOnly")
        assert base_url.input_value() == "http://localhost:8000/v1"
        page.get_by_test_id("live-key-env").select_option("PAGE_KEY")
        page.get_by_test_id("live-run").click()
        wait_until(
            page, "document.querySelector('#player').dataset.endReason === 'done'", timeout=15
        )
        assert "word0 word1 word2" in choice_texts(page)[0]
        assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {key}"
        assert key not in page.content()
    finally:
        server.stop()


def test_each_api_is_chosen_by_its_preset_and_previewed_as_it_is_sent(page, server, fake):
    page.goto(server.url + "/live")
    page.get_by_test_id("live-model").fill("m-1")
    page.get_by_test_id("live-api-key").fill("sk-browser-canary-0123456789")
    expected = {
        "Anthropic": (
            "anthropic",
            [
                "/v1/messages",
                "x-api-key: $ANTHROPIC_API_KEY",
                "anthropic-version: 2023-06-01",
                '"max_tokens": 1024',
            ],
        ),
        "Gemini": (
            "gemini",
            [
                "/v1beta/models/m-1:streamGenerateContent?alt=sse",
                "x-goog-api-key: $GEMINI_API_KEY",
                '"contents"',
            ],
        ),
        "OpenAI Responses": (
            "responses",
            ["/v1/responses", "Authorization: Bearer $OPENAI_API_KEY", '"input"'],
        ),
        "Ollama native (localhost:11434)": (
            "ollama",
            [
                "http://localhost:11434/api/chat",
                "application/x-ndjson",
                "Authorization: Bearer sk-…6789",
            ],
        ),
        "Gemini OpenAI-compatible": (
            "chat",
            ["/v1beta/openai/chat/completions", "Authorization: Bearer $GEMINI_API_KEY"],
        ),
    }
    for label, (api, fragments) in expected.items():
        page.get_by_test_id("live-preset").select_option(label=label)
        assert page.get_by_test_id("live-api").input_value() == api
        preview = preview_text(page)
        assert "sk-browser-canary-0123456789" not in preview
        for fragment in fragments:
            assert fragment in preview, (label, fragment, preview)
    # a model that cannot go in Gemini's URL is said before any run
    page.get_by_test_id("live-preset").select_option(label="Gemini")
    page.get_by_test_id("live-model").fill("../x")
    assert "cannot go in the URL" in preview_text(page)
    page.errors.expect("status of 400")  # the server refused that preview, as it should


def test_an_anthropic_run_from_the_page(page, server, fake):
    page.goto(server.url + "/live")
    page.get_by_test_id("live-api").select_option("anthropic")
    page.get_by_test_id("live-base-url").fill(f"http://127.0.0.1:{fake.port}")
    page.get_by_test_id("live-model").fill("replay:anthropic-claude-sonnet-4-5-text-ping.sse")
    page.get_by_test_id("live-api-key").fill("sk-browser-canary-0123456789")
    assert "/v1/messages" in preview_text(page)
    page.get_by_test_id("live-run").click()
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'done'", timeout=15)
    from ..dialects.common import expected

    want = expected("anthropic-claude-sonnet-4-5-text-ping.sse")["final_text"]
    assert choice_texts(page) == [want]
    sent = fake.requests[-1]
    assert (
        sent["path"] == "/v1/messages"
        and sent["headers"]["x-api-key"] == "sk-browser-canary-0123456789"
    )
    assert "sk-browser-canary-0123456789" not in page.content()
