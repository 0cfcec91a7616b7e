"""The player keeps up with itself (issue 11): the raw events follow playback and can be
filtered (item 10), a tapped token stays in view on a phone (item 9), the status line says the
current state (item 11), metrics appear at their moment (item 12), logprob controls only where
there are logprobs and tiny probabilities read "<0.01%" (item 13)."""

from __future__ import annotations

import math

from app.captures import read_capture
from app.demos import find

from .test_player import inspect_json, open_demo, wait_until

CURRENT_IN_VIEW = """() => {
  const list = document.querySelector('[data-testid=raw-view] .raw-list');
  const rows = list.querySelectorAll('li[aria-current="true"]');
  if (rows.length !== 1) return false;
  const row = rows[0].getBoundingClientRect(), box = list.getBoundingClientRect();
  const top = Math.max(box.top, 0), bottom = Math.min(box.bottom, innerHeight);
  return row.top >= top - 1 && row.bottom <= bottom + 1;  // seen: in the list and the window
}"""


def current_raw(page):
    return page.evaluate(
        "document.querySelector('[data-testid=raw-view] li[aria-current=\"true\"]')?.dataset.raw ?? null"
    )


def expected_raw(page):
    """The raw index of the last event on screen (what the raw view should mark)."""
    return page.evaluate(
        """(() => { const s = window.streamscope; let g = s.renderer.rendered - 1;
        while (g >= 0 && s.timeline.events[g].raw < 0) g--; return g < 0 ? null : String(s.timeline.events[g].raw); })()"""
    )


def test_the_raw_view_follows_seeks_and_playback_and_clears_at_home(page, server):
    open_demo(page, server, "plain-text")  # 181 raw events: the window of 40 scrolls
    duration = page.evaluate("window.streamscope.timeline.duration")
    page.get_by_test_id("player-seek").fill(str(int(duration * 0.6)))
    wait_until(page, f"({CURRENT_IN_VIEW})()")
    assert current_raw(page) == expected_raw(page)
    scroll_y = page.evaluate("scrollY")
    page.get_by_test_id("player-speed").select_option("3")
    page.get_by_test_id("player-play").click()
    for _ in range(3):
        page.wait_for_timeout(400)
        wait_until(page, f"({CURRENT_IN_VIEW})()", timeout=2)
    assert page.evaluate("scrollY") == scroll_y, "following never scrolls the page"
    page.keyboard.press("Space")
    page.keyboard.press("Home")
    assert page.locator('[data-testid="raw-view"] li.current').count() == 0
    assert page.locator('[data-testid="raw-view"] li[aria-current]').count() == 0
    page.keyboard.press("End")
    wait_until(page, f"({CURRENT_IN_VIEW})()")
    assert current_raw(page) == expected_raw(page)


def test_scrolling_the_raw_list_by_hand_stops_following_until_asked(page, server):
    open_demo(page, server, "plain-text")
    follow = page.get_by_test_id("raw-follow")
    scroll_top = "document.querySelector('[data-testid=raw-view] .raw-list').scrollTop"
    page.get_by_test_id("player-speed").select_option("0.5")  # 8 s of playback
    page.get_by_test_id("player-play").click()
    wait_until(page, f"({CURRENT_IN_VIEW})()")
    assert not follow.is_visible()
    page.locator('[data-testid="raw-view"] .raw-list').hover()
    page.mouse.wheel(0, -3000)  # back to the top of the list, away from the playhead
    wait_until(page, f"{scroll_top} === 0")
    wait_until(page, "!document.querySelector('[data-testid=raw-follow]').hidden")
    page.wait_for_timeout(800)  # the view would have followed twice by now
    assert page.evaluate(scroll_top) == 0, "the user's scroll was undone"
    assert page.evaluate("window.streamscope.player.state") == "playing"
    follow.click()
    assert not follow.is_visible()
    wait_until(page, f"({CURRENT_IN_VIEW})()")
    page.keyboard.press("Space")
    # Earlier/Later move the window by hand too; a jump with the transport follows again.
    page.locator('[data-raw="earlier"]').click()
    assert follow.is_visible()
    page.keyboard.press("ArrowRight")
    assert not follow.is_visible()
    wait_until(page, f"({CURRENT_IN_VIEW})()")


def test_the_raw_filter_keeps_the_matching_events(page, server):
    open_demo(page, server, "logprobs-top")
    stream = read_capture(find("logprobs-top").read_bytes()).streams[0]
    texts = [stream.raw_text(i) for i in range(len(stream.raw))]
    raw = page.get_by_test_id("raw-view")
    box = page.get_by_test_id("raw-filter")
    box.fill("[done]")
    wait_until(
        page, "document.querySelectorAll('[data-testid=raw-view] .raw-list li').length === 1"
    )
    wait_until(page, "!document.querySelector('[data-testid=raw-view] .raw-list li.loading')")
    assert raw.locator(".raw-list li .raw-text").text_content().endswith("data: [DONE]")
    assert "1 of 72 events match" in raw.locator(".raw-range").text_content()
    query = '"token":" of"'
    wanted = [i for i, text in enumerate(texts) if query in text]
    assert 1 < len(wanted) < 40
    box.fill(query)
    wait_until(
        page,
        f"document.querySelectorAll('[data-testid=raw-view] .raw-list li').length === {len(wanted)}",
    )
    shown = page.eval_on_selector_all(
        '[data-testid="raw-view"] .raw-list li', "rows => rows.map(r => Number(r.dataset.raw))"
    )
    assert shown == wanted
    wait_until(page, "!document.querySelector('[data-testid=raw-view] .raw-list li.loading')")
    for text in raw.locator(".raw-list li .raw-text").all_text_contents():
        assert query in text
    box.fill("")
    wait_until(
        page, "document.querySelectorAll('[data-testid=raw-view] .raw-list li').length === 40"
    )
    assert "events 1\u201340 of 72" in raw.locator(".raw-range").text_content()


def test_tapping_a_token_on_a_phone_keeps_it_and_its_popover_in_view(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_demo(page, server, "logprobs-top")
        page.keyboard.press("End")
        token = page.locator('[data-testid="choice-text"] [data-testid="token"].lp').nth(30)
        token.scroll_into_view_if_needed()
        before = page.evaluate("scrollY")
        token.tap()
        page.get_by_test_id("token-popover").wait_for(state="visible")
        page.wait_for_timeout(300)  # the raw view's reveal runs again at the next frame
        assert page.evaluate("scrollY") == before, "the page moved away from the token"
        for box in (token.bounding_box(), page.get_by_test_id("token-popover").bounding_box()):
            assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert page.locator('[data-testid="raw-view"] li.selected').count() == 1
    finally:
        context.close()
    assert errors == []


def test_the_status_line_says_the_current_state(page, server):
    open_demo(page, server, "reasoning")
    status = page.get_by_test_id("player-status")
    assert status.text_content().startswith("Ready")
    page.keyboard.press("End")
    assert status.text_content() == "Played to the end."
    page.get_by_test_id("player-seek").fill("2000")
    assert status.text_content() == "Paused at 0:02.000."
    page.get_by_test_id("player-play").click()
    assert status.text_content() == "Playing at 1\u00d7."
    page.keyboard.press(">")
    assert status.text_content() == "Playing at 1.5\u00d7."
    page.keyboard.press("Space")
    assert status.text_content().startswith("Paused at 0:0")


def test_metrics_appear_when_their_moment_is_played(page, server):
    metrics = inspect_json("tool-calls-parallel")["streams"][0]["metrics"]
    open_demo(page, server, "tool-calls-parallel")
    panel = page.get_by_test_id("metrics")

    def metric(key):
        shown = panel.locator(f'[data-metric="{key}"]')
        return shown.get_attribute("data-value"), shown.text_content()

    assert page.locator('[data-testid="usage"] [data-usage="none"]').count() == 1
    assert metric("ttft_ms") == ("", "not yet")
    assert metric("e2el_ms") == ("", "not yet")
    page.get_by_test_id("player-seek").fill(str(math.ceil(metrics["ttft_ms"])))
    assert float(metric("ttft_ms")[0]) == metrics["ttft_ms"]
    assert metric("e2el_ms") == ("", "not yet")
    assert metric("output_tokens") == ("", "not yet")
    page.keyboard.press("End")
    assert float(metric("e2el_ms")[0]) == metrics["e2el_ms"]
    assert metric("output_tokens")[0] == str(metrics["output_tokens"])
    page.keyboard.press("Home")
    assert metric("ttft_ms") == ("", "not yet")


def test_logprob_controls_only_with_logprobs_and_tiny_alternatives_read_below(page, server):
    open_demo(page, server, "plain-text")
    assert not page.get_by_test_id("logprob-legend").is_visible()
    assert not page.get_by_test_id("toggle-logprobs").is_visible()
    open_demo(page, server, "logprobs-top")
    assert page.get_by_test_id("logprob-legend").is_visible()
    assert page.get_by_test_id("toggle-logprobs").is_visible()
    page.keyboard.press("End")
    shown = page.evaluate(
        """(() => {
        const out = [];
        for (const span of document.querySelectorAll('[data-testid=choice-text] .tok.lp')) {
          span.dispatchEvent(new FocusEvent('focusin', { bubbles: true }));
          for (const p of document.querySelectorAll('[data-testid=token-popover] .alt-p')) out.push(p.textContent);
        }
        return out;
      })()"""
    )
    assert "<0.01%" in shown
    assert "0%" not in shown
