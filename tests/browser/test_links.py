"""Share links reopen exactly what was on screen: a token in any lane (issue 11, item 7), the
very end of a capture (item 8), and the theme in use (item 14)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from .test_player import open_demo, wait_until


def copy_link(page) -> str:
    page.get_by_test_id("copy-link").click()
    return page.get_attribute("#player", "data-copied")


def screen(page) -> dict:
    return {
        "states": page.get_by_test_id("tool-state").all_text_contents(),
        "finish": page.get_by_test_id("finish-reason").all_text_contents(),
        "usage": page.locator('[data-testid="usage"]').all_text_contents(),
        "text": page.get_by_test_id("choice-text").all_text_contents(),
        "cursor": page.evaluate("window.streamscope.player.cursor"),
    }


def test_a_reasoning_token_link_is_copied_and_reopens_that_token(page, server):
    open_demo(page, server, "reasoning")
    page.keyboard.press("End")
    token = page.locator('[data-testid="reasoning-text"] [data-testid="token"]').nth(7)
    text = token.text_content()
    token.click()
    copied = copy_link(page)  # threw "Cannot read properties of null (reading 'dataset')"
    query = parse_qs(urlsplit(copied).query)
    assert query["lane"] == ["reasoning"] and query["choice"] == ["0"] and query["token"] == ["7"]
    wait_until(
        page, "/link/i.test(document.querySelector('[data-testid=player-status]').textContent)"
    )
    page.goto(copied)
    page.wait_for_selector('#player[data-loaded="true"]', state="attached")
    selected = page.locator(".tok.selected")
    assert selected.count() == 1
    assert selected.text_content() == text
    assert page.evaluate(
        "document.querySelector('.tok.selected').closest('[data-testid=reasoning-text]') !== null"
    )


def test_a_link_copied_at_the_end_reopens_the_end(page, server):
    open_demo(page, server, "tool-calls-parallel")  # ends at 1482.064 ms
    page.keyboard.press("End")
    ended = screen(page)
    assert ended["states"] == ["valid JSON", "valid JSON"]
    assert "no usage yet" not in ended["usage"][0]
    shown = page.get_by_test_id("player-time").text_content()
    copied = copy_link(page)
    t = parse_qs(urlsplit(copied).query)["t"][0]
    assert shown == f"0:0{float(t):.3f}", (shown, t)  # the time shown is the time in the link
    assert page.get_by_test_id("player-duration").text_content() == shown
    page.goto(copied)
    page.wait_for_selector('#player[data-loaded="true"]', state="attached")
    assert screen(page) == ended
    assert page.get_by_test_id("player-time").text_content() == shown


def test_a_link_copied_after_stepping_reopens_the_same_chunk(page, server):
    open_demo(page, server, "tool-calls-parallel")
    for _ in range(9):
        page.keyboard.press("ArrowRight")
    here = screen(page)
    copied = copy_link(page)
    page.goto(copied)
    page.wait_for_selector('#player[data-loaded="true"]', state="attached")
    assert screen(page) == here


def test_the_theme_switch_is_remembered_and_reflected_in_links(page, server):
    open_demo(page, server, "plain-text")
    switch = page.get_by_test_id("theme-switch")
    assert switch.input_value() == "auto"
    background = "getComputedStyle(document.body).backgroundColor"
    light = page.evaluate(background)
    switch.select_option("dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    dark = page.evaluate(background)
    assert dark != light
    assert parse_qs(urlsplit(copy_link(page)).query)["theme"] == ["dark"]
    # Remembered: another page, rendered dark by the server from the first paint.
    page.goto(server.url + "/")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.get_by_test_id("theme-switch").input_value() == "dark"
    open_demo(page, server, "plain-text")
    assert page.evaluate(background) == dark
    # ?theme= wins for one view; choosing in the switch drops it from the address.
    open_demo(page, server, "plain-text", "?theme=light")
    assert page.get_by_test_id("theme-switch").input_value() == "light"
    page.get_by_test_id("theme-switch").select_option("auto")
    assert "theme=" not in page.url
    assert page.evaluate("document.documentElement.dataset.theme") is None
    assert "theme=" not in copy_link(page)
    page.reload()
    page.wait_for_selector('#player[data-loaded="true"]', state="attached")
    assert page.get_by_test_id("theme-switch").input_value() == "auto"
