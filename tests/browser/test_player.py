"""The player page in Chromium: faithful text at every moment, controls, logprobs, tool calls,
metrics, and screenshots of each main state (written to test-output/screenshots/)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from app.captures import read_capture
from app.demos import find
from app.domain.dialects.chat.assemble import assemble, plain

from .. import helpers


def wait_until(page, expression: str, timeout: float = 10.0) -> None:
    """Poll a JS expression (wait_for_function would need 'unsafe-eval', which the CSP forbids)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        page.wait_for_timeout(20)


def open_demo(page, server, name: str, query: str = "") -> None:
    page.goto(f"{server.url}/demos/{name}{query}")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)


def play_to_end(page) -> None:
    page.get_by_test_id("player-speed").select_option("max")
    page.get_by_test_id("player-play").click()
    page.wait_for_selector('#player[data-state="ended"]', state="attached", timeout=15000)


def choice_texts(page) -> list[str]:
    return page.eval_on_selector_all(
        '[data-testid="choice-text"]', "els => els.map(e => e.textContent)"
    )


def demo_streams(name: str):
    return read_capture(find(name).read_bytes()).streams


class Schedule:
    """The page's cursor arithmetic, in Python, for one timed stream."""

    def __init__(self, stream):
        self.events = stream.events
        self.times = []
        last = 0.0
        for event in self.events:
            last = event.t if event.t is not None else last
            self.times.append(last)

    def at(self, ms: float) -> int:
        return sum(1 for t in self.times if t <= ms)

    def key(self, i: int):
        return self.events[i].raw if self.events[i].raw >= 0 else ("end", i)

    def next(self, cursor: int) -> int:
        if cursor >= len(self.events):
            return cursor
        key, cursor = self.key(cursor), cursor + 1
        while cursor < len(self.events) and self.key(cursor) == key:
            cursor += 1
        return cursor

    def previous(self, cursor: int) -> int:
        if cursor <= 0:
            return 0
        key, cursor = self.key(cursor - 1), cursor - 1
        while cursor > 0 and self.key(cursor - 1) == key:
            cursor -= 1
        return cursor

    def text(self, cursor: int) -> str:
        return "".join(e.text for e in self.events[:cursor] if e.kind == "text")


def test_seed_demo_played_at_max_speed_shows_exactly_both_streams(page, server, shot):
    open_demo(page, server, "seed-docs")
    play_to_end(page)
    expected = [
        plain(assemble(s.events))["choices"][0]["message"]["content"]
        for s in demo_streams("seed-docs")
    ]
    assert choice_texts(page) == expected == ["This is", "This"]
    assert page.locator('[data-testid="finish-reason"]').all_text_contents() == [
        "finish: stop",
        "finish: tool_calls",
    ]
    shot(page, "seed-docs-ended")


def test_seek_to_the_middle_shows_exactly_the_text_up_to_that_moment(page, server, shot):
    open_demo(page, server, "plain-text")
    schedule = Schedule(demo_streams("plain-text")[0])
    middle = round(schedule.times[-1] / 2)
    page.get_by_test_id("player-seek").fill(str(middle))
    cursor = schedule.at(middle)
    assert 0 < len(schedule.text(cursor)) < len(schedule.text(len(schedule.events)))
    assert choice_texts(page) == [schedule.text(cursor)]
    shot(page, "plain-text-middle")
    # Step forward one chunk, then back two: exactly one raw event's events each time.
    page.get_by_test_id("player-step-forward").click()
    cursor = schedule.next(cursor)
    assert choice_texts(page) == [schedule.text(cursor)]
    page.get_by_test_id("player-step-back").click()
    page.get_by_test_id("player-step-back").click()
    cursor = schedule.previous(schedule.previous(cursor))
    assert choice_texts(page) == [schedule.text(cursor)]
    page.keyboard.press("ArrowRight")
    cursor = schedule.next(cursor)
    assert choice_texts(page) == [schedule.text(cursor)]
    page.keyboard.press("Home")
    assert choice_texts(page) in ([], [""])
    page.keyboard.press("End")
    assert choice_texts(page) == [schedule.text(len(schedule.events))]


def test_speed_changes_while_playing(page, server):
    open_demo(page, server, "reasoning")  # 6 s long: room to measure without reaching the end
    page.get_by_test_id("player-play").click()
    wait_until(page, "window.streamscope.player.time() > 200")
    before = page.evaluate("[window.streamscope.player.time(), performance.now()]")
    page.get_by_test_id("player-speed").select_option("5")
    assert page.evaluate("window.streamscope.player.state") == "playing"
    page.wait_for_timeout(250)
    after = page.evaluate(
        "[window.streamscope.player.time(), performance.now(), window.streamscope.player.state]"
    )
    media, wall = after[0] - before[0], after[1] - before[1]
    assert after[2] == "playing"
    assert media > 2.5 * wall, (media, wall)  # ran at about 5x (1x would give media == wall)
    page.keyboard.press("<")
    assert page.evaluate("window.streamscope.player.speed") == 3
    page.keyboard.press("Space")
    assert page.evaluate("window.streamscope.player.state") == "paused"
    frozen = page.evaluate("window.streamscope.player.time()")
    page.wait_for_timeout(200)
    assert page.evaluate("window.streamscope.player.time()") == frozen


def test_hovering_a_token_shows_its_alternatives(page, server, shot):
    open_demo(page, server, "logprobs-top")
    play_to_end(page)
    token = page.locator('[data-testid="token"].lp').nth(3)
    token.hover()
    popover = page.get_by_test_id("token-popover")
    popover.wait_for(state="visible")
    alternatives = popover.get_by_test_id("alternative")
    assert alternatives.count() == 5
    assert popover.locator(".alt.chosen").count() == 1
    assert "%" in popover.locator('[data-pop="probability"]').first.text_content()
    shot(page, "logprobs-popover")
    # The split emoji: a token whose bytes are not UTF-8 alone shows them.
    partial = page.locator('[data-testid="token"].partial')
    assert partial.count() >= 1
    assert partial.first.get_attribute("data-bytes")
    # Every token with logprobs is one element, and the text is exact.
    streams = demo_streams("logprobs-top")
    assert choice_texts(page) == [
        plain(assemble(streams[0].events))["choices"][0]["message"]["content"]
    ]


def test_tool_call_demo_ends_with_pretty_json_and_the_seed_call_is_invalid(page, server, shot):
    open_demo(page, server, "tool-calls-parallel")
    play_to_end(page)
    completion = plain(assemble(demo_streams("tool-calls-parallel")[0].events))
    calls = completion["choices"][0]["message"]["tool_calls"]
    cards = page.get_by_test_id("tool-call")
    assert cards.count() == len(calls) == 2
    for i, call in enumerate(calls):
        card = cards.nth(i)
        assert card.get_by_test_id("tool-name").text_content() == call["function"]["name"]
        assert card.get_by_test_id("tool-id").text_content() == call["id"]
        pretty = json.dumps(json.loads(call["function"]["arguments"]), indent=2, ensure_ascii=False)
        assert card.get_by_test_id("tool-pretty").text_content() == pretty
    shot(page, "tool-calls-ended")
    open_demo(page, server, "seed-docs")
    play_to_end(page)
    card = page.get_by_test_id("tool-call")
    assert card.count() == 1
    assert "invalid JSON" in card.get_by_test_id("tool-state").text_content()
    assert "incomplete JSON" in card.get_by_test_id("tool-error").text_content()
    assert card.get_by_test_id("tool-invalid").text_content() == '{"arg}'


def test_tool_card_grows_fragment_by_fragment(page, server):
    open_demo(page, server, "tool-calls-parallel")
    stream = demo_streams("tool-calls-parallel")[0]
    schedule = Schedule(stream)
    first_args = next(i for i, e in enumerate(stream.events) if e.kind == "tool_args")
    cursor = schedule.next(first_args)
    for _ in range(3):
        cursor = schedule.next(cursor)
    page.get_by_test_id("player-seek").fill(str(int(schedule.times[cursor - 1])))
    cursor = schedule.at(int(schedule.times[cursor - 1]))
    fragments = [e.text for e in stream.events[:cursor] if e.kind == "tool_args" and e.call == 0]
    card = page.get_by_test_id("tool-call").first
    assert "streaming" in card.get_attribute("class")
    assert card.locator(".frag").all_text_contents() == fragments


def inspect_json(name: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", str(find(name).path), "--json"],
        capture_output=True,
        check=True,
        cwd=helpers.CAPTURES.parent.parent,
    )
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", ["tool-calls-parallel", "reasoning", "seed-docs"])
def test_usage_and_metrics_match_inspect_json(page, server, name):
    document = inspect_json(name)
    open_demo(page, server, name)
    play_to_end(page)
    for stream in document["streams"]:
        section = page.locator(f'[data-testid="stream"][data-stream="{stream["index"]}"]')
        metrics = stream["metrics"]
        for key in (
            "ttft_ms",
            "ttfo_ms",
            "itl_p50_ms",
            "itl_p95_ms",
            "itl_max_ms",
            "tpot_ms",
            "tokens_per_s",
            "decode_tokens_per_s",
            "e2el_ms",
        ):
            shown = section.locator(f'[data-testid="metrics"] [data-metric="{key}"]')
            value = shown.get_attribute("data-value")
            if metrics[key] is None:
                assert value == "" and shown.text_content() == "unknown", key
            else:
                assert float(value) == pytest.approx(metrics[key]), key
        assert section.locator('[data-metric="stalls"]').get_attribute("data-value") == str(
            len(metrics["stalls"])
        )
        usage = stream["completion"]["usage"]
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            assert section.locator(
                f'[data-testid="usage"] [data-usage="{key}"]'
            ).text_content() == str(usage[key])


def test_whitespace_toggle_shows_glyphs_and_restores_text(page, server):
    open_demo(page, server, "plain-text")
    play_to_end(page)
    original = choice_texts(page)
    page.get_by_test_id("toggle-whitespace").check()
    shown = choice_texts(page)[0]
    assert "·" in shown and "↵" in shown
    page.get_by_test_id("toggle-whitespace").uncheck()
    assert choice_texts(page) == original


def test_n_choices_side_by_side_with_their_finish_reasons(page, server, shot):
    open_demo(page, server, "n3-choices")
    play_to_end(page)
    completion = plain(assemble(demo_streams("n3-choices")[0].events))
    assert choice_texts(page) == [c["message"]["content"] for c in completion["choices"]]
    boxes = page.locator('[data-testid="choice"]')
    tops = {round(boxes.nth(i).bounding_box()["y"]) for i in range(3)}
    assert len(tops) == 1, "the three choices should sit side by side"
    assert page.get_by_test_id("finish-reason").all_text_contents() == ["finish: stop"] * 3
    shot(page, "n3-choices")


def test_reasoning_lane_and_error_at_its_moment(page, server, shot):
    open_demo(page, server, "error-midstream")
    stream = demo_streams("error-midstream")[0]
    error_at = next(e.t for e in stream.events if e.kind == "error")
    page.get_by_test_id("player-seek").fill(str(int(error_at) - 50))
    assert page.get_by_test_id("stream-errors").text_content() == ""
    assert page.get_by_test_id("reasoning-lane").is_visible()
    page.keyboard.press("End")
    assert "Tool call validation failed" in page.get_by_test_id("stream-errors").text_content()
    assert page.get_by_test_id("finish-reason").text_content() == "finish: none"
    shot(page, "error-midstream")


def test_raw_view_follows_and_selecting_a_token_highlights_its_chunk(page, server):
    open_demo(page, server, "logprobs-top")
    play_to_end(page)
    token = page.locator('[data-testid="token"]').nth(10)
    word = token.text_content()
    token.click()
    selected = page.locator('[data-testid="raw-view"] li.selected')
    selected.wait_for(state="visible")
    chunk = selected.locator(".raw-text").text_content()
    assert '"logprobs"' in chunk and json.dumps(word)[1:-1] in chunk, (word, chunk)
    row = page.locator('[data-testid="raw-view"] li[data-raw="5"]')
    row.click()
    hits = page.locator(".tok.raw-hit")
    assert hits.count() >= 1
    chunk = row.locator(".raw-text").text_content()
    for i in range(hits.count()):
        assert json.dumps(hits.nth(i).text_content())[1:-1] in chunk


def test_help_overlay_and_dark_theme_screenshots(page, server, shot):
    open_demo(page, server, "reasoning", "?theme=dark")
    play_to_end(page)
    shot(page, "reasoning-dark")
    page.keyboard.press("?")
    assert page.get_by_test_id("help-overlay").is_visible()
    shot(page, "help-overlay")
    page.keyboard.press("Escape")
    assert not page.get_by_test_id("help-overlay").is_visible()


def test_projector_and_laptop_sizes(page, server, shot):
    for width, height, name in ((1280, 720, "laptop"), (1920, 1080, "projector")):
        page.set_viewport_size({"width": width, "height": height})
        open_demo(page, server, "tool-calls-parallel")
        play_to_end(page)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"horizontal overflow at {width}x{height}"
        shot(page, f"tool-calls-{name}")


# Issue 28, item 22: usage and metric names are laid out to fit, never broken mid-word
# ("cache_creation_i nput_tokens"): a line may end only after a space or an underscore.
MID_WORD_BREAKS = """() => {
  const found = [];
  for (const dt of document.querySelectorAll('[data-testid=usage] dt, [data-testid=metrics] dt')) {
    const text = dt.textContent;
    const range = document.createRange();
    const walker = document.createTreeWalker(dt, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect) chars.push([node.data[i], rect.top]);
      }
    }
    for (let i = 1; i < chars.length; i++) {
      const [prev, top] = chars[i - 1];
      if (chars[i][1] > top + 2 && !/[\\s_.\\-/]/.test(prev) && chars[i][0] !== " ") found.push(text);
    }
    const box = dt.getBoundingClientRect();
    const panel = dt.closest('.panel').getBoundingClientRect();
    if (box.right > panel.right + 1) found.push(`overflows: ${text}`);
  }
  return found;
}"""


def test_usage_and_metric_names_never_break_mid_word(browser, server):
    for width in (1366, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        for demo in ("anthropic-web-search", "responses-web-search", "tool-calls-parallel"):
            open_demo(page, server, demo)
            play_to_end(page)
            wait_until(page, "document.querySelectorAll('[data-testid=usage] dt').length > 0")
            names = page.eval_on_selector_all(
                "[data-testid=usage] dt", "els => els.map(e => e.textContent)"
            )
            assert names
            assert page.evaluate(MID_WORD_BREAKS) == [], (demo, width, names)
        context.close()


# Issue 28, item 13: the text is a composite widget (roving tabindex): one Tab stop, arrows
# move between tokens, Enter/Space opens the popover, Escape closes it; the ? dialog takes
# focus and gives it back.
ACTIVE = """() => {
  const a = document.activeElement;
  const area = a.closest('[data-testid=choice-text]');
  const tokens = area ? [...area.querySelectorAll('.tok')] : [];
  return {token: a.classList.contains('tok'), index: tokens.indexOf(a), inText: Boolean(area),
          testid: a.dataset.testid ?? a.dataset.action ?? null};
}"""


def popover_shown(page) -> bool:
    return page.get_by_test_id("token-popover").is_visible()


def test_keyboard_users_inspect_tokens_with_one_tab_stop_and_arrows(page, server):
    open_demo(page, server, "logprobs-top")
    play_to_end(page)
    text = page.get_by_test_id("choice-text").first
    assert text.locator('.tok[tabindex="0"]').count() == 0  # the text is the one Tab stop
    text.focus()  # as Tab reaches it: focus goes on to its current token
    first = page.evaluate(ACTIVE)
    assert first["token"] and first["inText"] and first["index"] == 0, first
    time_before = page.get_by_test_id("player-time").text_content()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(ACTIVE)["index"] == 2
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(ACTIVE)["index"] == 1
    assert page.get_by_test_id("player-time").text_content() == time_before  # no stepping
    page.keyboard.press("Escape")
    assert not popover_shown(page)
    page.keyboard.press("Enter")
    assert popover_shown(page)
    assert page.evaluate("document.activeElement.classList.contains('selected')")
    page.keyboard.press("Escape")
    assert not popover_shown(page)
    page.keyboard.press("End")
    last = page.evaluate(ACTIVE)["index"]
    assert last > 2
    page.keyboard.press(" ")
    assert popover_shown(page)
    assert page.evaluate("window.streamscope.player.state") == "ended"  # Space did not replay
    # Shift+Tab leaves the text; Tab comes back to the same token.
    page.keyboard.press("Shift+Tab")
    assert not page.evaluate(ACTIVE)["inText"]
    page.keyboard.press("Tab")
    back = page.evaluate(ACTIVE)
    assert back["token"] and back["index"] == last, back


def test_the_help_dialog_takes_focus_and_gives_it_back(page, server):
    open_demo(page, server, "plain-text")
    page.get_by_test_id("player-play").focus()
    page.keyboard.press("?")
    assert page.get_by_test_id("help-overlay").is_visible()
    assert page.evaluate(ACTIVE)["testid"] == "help-close"
    page.keyboard.press("Escape")
    assert not page.get_by_test_id("help-overlay").is_visible()
    assert page.evaluate(ACTIVE)["testid"] == "player-play"


def test_the_help_dialog_keeps_tab_inside_on_the_player_and_on_compare(page, server):
    """Issue 28, item 13: while the ``?`` dialog is open, Tab and Shift+Tab stay in it (the
    modal dialog pattern); compare's dialog takes focus and gives it back as the player's does."""
    for path, start in (
        ("/demos/plain-text", "player-play"),
        ("/compare/demos/plain-text/demos/n3-choices", "player-play"),
    ):
        page.goto(server.url + path)
        page.wait_for_selector('[data-testid="help-overlay"]', state="attached", timeout=15000)
        page.get_by_test_id(start).focus()
        page.keyboard.press("?")
        assert page.get_by_test_id("help-overlay").is_visible(), path
        assert page.evaluate(ACTIVE)["testid"] == "help-close", path
        for key in ("Tab", "Shift+Tab", "Tab"):
            page.keyboard.press(key)
            assert page.evaluate(ACTIVE)["testid"] == "help-close", (path, key)
        page.keyboard.press("Escape")
        assert not page.get_by_test_id("help-overlay").is_visible()
        assert page.evaluate(ACTIVE)["testid"] == start, path
