"""Uploading from the page, share links that keep the moment, markup that stays text."""

from __future__ import annotations

import json
import re

from app.captures import read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .. import helpers
from .conftest import watch
from .test_player import Schedule, choice_texts, wait_until

XSS_TOKENS = [
    "<img src=x onerror=window.__xss=1>",
    "</script><script>window.__xss=2</script>",
    "<svg onload=window.__xss=3>",
    " & <b>bold</b>",
]


def xss_capture() -> bytes:
    lines = []
    for i, token in enumerate(XSS_TOKENS):
        chunk = {
            "id": "x",
            "object": "chat.completion.chunk",
            "model": "<i>model</i>",
            "choices": [{"index": 0, "delta": {"content": token}}],
        }
        lines.append(
            f"{json.dumps({'type': 'read', 't': 100.0 + 50 * i, 'text': 'data: ' + json.dumps(chunk) + chr(10) * 2})}"
        )
    tool = {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "<b>id</b>",
                            "function": {
                                "name": "<img src=x onerror=window.__xss=4>",
                                "arguments": '{"html": "<script>window.__xss=5</script>"}',
                            },
                        }
                    ]
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    lines.append(
        json.dumps(
            {
                "type": "read",
                "t": 400.0,
                "text": "data: " + json.dumps(tool) + "\n\ndata: [DONE]\n\n",
            }
        )
    )
    header = json.dumps(
        {
            "type": "header",
            "format": "streamscope.timed",
            "version": 1,
            "created": "2026-11-29T00:00:00Z",
            "source": {"url": "<script>window.__xss=6</script>"},
            "request": {},
            "response": {},
        }
    )
    return (
        header
        + "\n"
        + "\n".join(lines)
        + "\n"
        + json.dumps({"type": "end", "t": 401.0, "reason": "done"})
        + "\n"
    ).encode()


def wait_loaded(page):
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)


def upload_from_page(page, server, path, title=""):
    """Upload through the home page: the player opens by itself at the share link."""
    page.goto(server.url + "/")
    page.get_by_test_id("upload-file").set_input_files(str(path))
    if title:
        page.locator("#upload-title").fill(title)
    page.get_by_test_id("upload-submit").click()
    page.wait_for_url(re.compile(r"/c/[\w-]+$"), timeout=15000)
    wait_loaded(page)
    return page.url


def test_upload_then_share_link_at_a_moment_in_a_second_browser(
    page, server, browser, tmp_path, shot
):
    path = helpers.CAPTURES.parent.parent / "app" / "demos" / "plain-text.timed.jsonl"
    href = upload_from_page(page, server, path, title="Teaching demo")
    assert page.get_by_test_id("capture-format").text_content() == "format: timed"
    assert page.get_by_test_id("delete-token").text_content().startswith("Delete token")
    shot(page, "upload-result")
    assert page.get_by_test_id("player-title").text_content() == "Teaching demo"
    assert page.get_by_test_id("delete-token").is_visible()
    page.reload()  # the token is shown once
    wait_loaded(page)
    assert not page.get_by_test_id("delete-token").is_visible()
    # Pause at a moment, at speed 2, and copy the link.
    stream = read_capture(path.read_bytes()).streams[0]
    schedule = Schedule(stream)
    moment = int(schedule.times[-1] * 0.6)
    page.get_by_test_id("player-speed").select_option("2")
    page.get_by_test_id("player-seek").fill(str(moment))
    here = choice_texts(page)
    page.get_by_test_id("copy-link").click()
    copied = page.get_attribute("#player", "data-copied")
    assert re.search(r"[?&]t=\d+(\.\d+)?", copied) and "speed=2" in copied
    # A second browser context (another person) opens the link.
    other = browser.new_context()
    second = other.new_page()
    errors = watch(second)
    second.goto(copied)
    wait_loaded(second)
    assert choice_texts(second) == here == [schedule.text(schedule.at(moment))]
    assert second.evaluate("window.streamscope.player.speed") == 2
    assert second.get_by_test_id("player-speed").input_value() == "2"
    assert not second.get_by_test_id("owner-tools").is_visible()
    shot(second, "shared-link-at-moment")
    # The hand-written form of the link: t in m:ss, autoplay.
    second.goto(f"{href}?t=0:01.5&speed=0.5&autoplay=1")
    wait_loaded(second)
    assert second.evaluate("window.streamscope.player.state") == "playing"
    assert second.evaluate("window.streamscope.player.speed") == 0.5
    assert second.evaluate("window.streamscope.player.time()") >= 1500
    errors.check()
    other.close()


def test_shared_link_keeps_the_selected_token(page, server, shot):
    page.goto(f"{server.url}/demos/logprobs-top")
    wait_loaded(page)
    page.keyboard.press("End")
    token = page.locator('.choice-text[data-choice="0"] [data-testid="token"]').nth(12)
    text = token.text_content()
    token.click()
    page.get_by_test_id("copy-link").click()
    copied = page.get_attribute("#player", "data-copied")
    assert "choice=0" in copied and "token=12" in copied
    page.goto(copied)
    wait_loaded(page)
    selected = page.locator(".tok.selected")
    assert selected.count() == 1
    assert selected.text_content() == text
    assert page.get_by_test_id("token-popover").is_visible()
    index = page.evaluate(
        "[...document.querySelectorAll('.choice-text[data-choice=\"0\"] .tok')].indexOf(document.querySelector('.tok.selected'))"
    )
    assert index == 12
    shot(page, "shared-token")


def test_markup_in_tokens_and_title_renders_literally_and_runs_nothing(
    page, server, tmp_path, shot
):
    path = tmp_path / "xss.timed.jsonl"
    path.write_bytes(xss_capture())
    upload_from_page(
        page,
        server,
        path,
        title="<script>window.__xss=7</script><img src=x onerror=window.__xss=8>",
    )
    page.get_by_test_id("player-speed").select_option("max")
    page.get_by_test_id("player-play").click()
    page.wait_for_selector('#player[data-state="ended"]', state="attached")
    assert choice_texts(page) == ["".join(XSS_TOKENS)]
    assert (
        page.get_by_test_id("player-title").text_content()
        == "<script>window.__xss=7</script><img src=x onerror=window.__xss=8>"
    )
    assert page.title().startswith("<script>window.__xss=7</script>")
    assert page.get_by_test_id("tool-name").text_content() == "<img src=x onerror=window.__xss=4>"
    assert page.evaluate("window.__xss") is None
    assert (
        page.locator(
            "#player img, #player svg:not(.btn svg):not(button svg), #player script, #player b, #player i"
        ).count()
        == 0
    )
    page.locator('[data-testid="raw-view"] li').first.wait_for()
    assert page.evaluate("window.__xss") is None
    shot(page, "markup-literal")


def test_paste_and_drop_uploads(page, server):
    page.goto(server.url + "/")
    page.locator(".paste summary").click()
    page.get_by_test_id("upload-text").fill(helpers.corpus("mistral-small-text.sse").decode())
    page.get_by_test_id("upload-submit").click()
    page.wait_for_url(re.compile(r"/c/[\w-]+$"))
    wait_loaded(page)
    assert page.get_by_test_id("capture-format").text_content() == "format: sse"
    page.goto(server.url + "/")
    content = helpers.corpus("openai-gpt4o-refusal.sse").decode()
    transfer = page.evaluate_handle(
        "text => { const dt = new DataTransfer(); dt.items.add(new File([text], 'dropped.sse', {type: 'text/plain'})); return dt; }",
        content,
    )
    page.dispatch_event("body", "drop", {"dataTransfer": transfer})
    page.wait_for_url(re.compile(r"/c/[\w-]+$"))
    wait_loaded(page)
    assert page.get_by_test_id("capture-format").text_content() == "format: sse"
    page.goto(server.url + "/")
    assert page.get_by_test_id("my-capture").first.locator("a").text_content() == "dropped.sse"


def test_a_bad_upload_says_why(page, server, tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<!doctype html><html><body>Bad Gateway</body></html>")
    page.goto(server.url + "/")
    page.get_by_test_id("upload-file").set_input_files(str(path))
    page.get_by_test_id("upload-submit").click()
    result = page.get_by_test_id("upload-result")
    wait_until(page, "document.getElementById('upload-result').dataset.state === 'error'")
    assert "HTML page" in result.text_content()
    page.errors.expect("status of 400")


def test_owner_renames_and_deletes_from_the_page(page, server, tmp_path):
    path = tmp_path / "mine.sse"
    path.write_bytes(helpers.corpus("openai-gpt4o-length.sse"))
    upload_from_page(page, server, path)
    page.get_by_test_id("title-input").fill("Renamed by owner")
    page.locator('[data-testid="title-form"] button').click()
    wait_until(
        page,
        "document.querySelector('[data-testid=player-title]').textContent === 'Renamed by owner'",
    )
    url = page.url
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("delete-capture").click()
    page.wait_for_url(server.url + "/")
    response = page.goto(url)
    assert response.status == 404
    page.errors.expect("status of 404")
    page.goto(server.url + "/")
    assert "mine.sse" not in (page.get_by_test_id("my-captures").text_content() or "")


def test_embed_page_is_compact(page, server, tmp_path, shot):
    path = tmp_path / "embed.sse"
    path.write_bytes(helpers.corpus("openai-gpt4o-tool-single.sse"))
    href = upload_from_page(page, server, path)
    capture_id = href.rsplit("/", 1)[1]
    page.goto(f"{server.url}/embed/{capture_id}")
    wait_loaded(page)
    assert page.locator(".site-header").count() == 0
    assert not page.get_by_test_id("raw-view").is_visible()
    page.get_by_test_id("player-end").click()
    completion = plain(
        assemble(read_capture(helpers.corpus("openai-gpt4o-tool-single.sse")).streams[0].events)
    )
    pretty = json.dumps(
        json.loads(completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]),
        indent=2,
    )
    assert page.get_by_test_id("tool-pretty").text_content() == pretty
    shot(page, "embed")


def test_a_delete_token_from_another_browser_is_taken_and_kept(page, server, browser, tmp_path):
    """Issue 28, item 25: the uploader on a second browser pastes the token; a wrong one is
    refused; the right one shows the owner's tools and is kept in that browser."""
    from ..test_api import upload as api_upload

    status, answer = api_upload(
        server, helpers.corpus("openai-gpt4o-length.sse"), title="Elsewhere"
    )
    assert status == 201, answer
    page.goto(answer["url"])
    wait_loaded(page)
    assert not page.get_by_test_id("owner-tools").is_visible()
    assert page.get_by_test_id("token-form").is_visible()
    page.get_by_test_id("token-input").fill("not-the-token")
    page.get_by_test_id("token-use").click()
    wait_until(
        page,
        "document.querySelector('[data-testid=token-status]').textContent.includes('not this')",
    )
    page.errors.expect("status of 403")
    assert not page.get_by_test_id("owner-tools").is_visible()
    page.get_by_test_id("token-input").fill(answer["delete_token"])
    page.get_by_test_id("token-use").click()
    page.get_by_test_id("owner-tools").wait_for(state="visible", timeout=5000)
    assert not page.get_by_test_id("token-form").is_visible()
    page.reload()  # kept in this browser
    wait_loaded(page)
    assert page.get_by_test_id("owner-tools").is_visible()
    assert not page.get_by_test_id("token-form").is_visible()
    page.get_by_test_id("title-input").fill("Renamed elsewhere")
    page.locator('[data-testid="title-form"] button').click()
    wait_until(
        page,
        "document.querySelector('[data-testid=player-title]').textContent === 'Renamed elsewhere'",
    )
    page.goto(server.url + "/")
    assert "Renamed elsewhere" in (page.get_by_test_id("my-captures").text_content() or "")
