"""The metrics panel says where its times came from: a HAR entry's timings, or none."""

from __future__ import annotations

from .. import helpers
from ..test_api import upload
from ..test_readers import har_entry, timed_har, with_timings
from .test_player import open_demo, play_to_end


def metric(page, key: str):
    return page.locator(f'[data-testid="metrics"] [data-metric="{key}"]')


def test_a_har_upload_shows_ttft_and_e2el_from_its_timings_and_says_so(page, server):
    body = helpers.corpus("mistral-small-text.sse")
    status, answer = upload(server, timed_har(with_timings(har_entry(body))), title="DevTools")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    play_to_end(page)
    assert float(metric(page, "ttft_ms").get_attribute("data-value")) == 312.0
    assert float(metric(page, "e2el_ms").get_attribute("data-value")) == 1512.0
    assert metric(page, "itl_p50_ms").text_content() == "unknown"
    source = metric(page, "timing_source")
    assert source.get_attribute("data-value") == "har"
    assert "HAR entry's timings (started 2026-11-29T10:00:00.123Z)" in source.text_content()
    # Replayed on the entry's own timings (issue 28, item 19: it was paced, 0.08 s in all).
    assert "replayed from its first byte to its last" in metric(page, "untimed").text_content()
    assert page.get_by_test_id("player-duration").text_content() == "0:01.512"


def test_a_capture_without_timing_says_its_metrics_are_unknown(page, server):
    open_demo(page, server, "seed-docs")
    play_to_end(page)
    assert metric(page, "ttft_ms").first.text_content() == "unknown"
    assert metric(page, "timing_source").count() == 0
    assert "timing metrics are unknown" in metric(page, "untimed").first.text_content()


# Issue 28, item 12: a demo's network timing was synthesized by scripts/make_demos.py; the page,
# the embed, the home card and the offline export say so, never "real timing".
def assert_synthesized(page) -> None:
    timing = page.get_by_test_id("stream-timing").first
    assert timing.is_visible()
    assert timing.get_attribute("data-timing") == "synthesized"
    assert "synthesized" in timing.text_content()
    assert "real timing" not in page.locator("body").text_content()


def test_a_demo_with_synthesized_timing_says_so_on_its_page_and_in_its_metrics(page, server):
    open_demo(page, server, "tool-calls-parallel")
    assert_synthesized(page)
    play_to_end(page)
    source = metric(page, "timing_source")
    assert source.get_attribute("data-value") == "synthesized"
    assert "synthesized, not measured" in source.text_content()
    assert "from the time of each network read" not in source.text_content()


def test_the_embed_of_a_demo_says_its_timing_is_synthesized(page, server):
    page.goto(f"{server.url}/embed/demos/tool-calls-parallel")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    assert_synthesized(page)


def test_the_home_cards_say_each_demos_timing(page, server):
    page.goto(server.url + "/")
    cards = page.get_by_test_id("demo-list").locator("li")
    timings = {}
    for i in range(cards.count()):
        card = cards.nth(i)
        name = card.get_by_test_id("demo-link").get_attribute("href").rsplit("/", 1)[-1]
        timings[name] = card.get_by_test_id("demo-timing")
    assert timings["tool-calls-parallel"].get_attribute("data-timing") == "synthesized"
    assert "synthesized" in timings["tool-calls-parallel"].text_content()
    assert timings["logprobs-top"].get_attribute("data-timing") == "synthesized"
    assert timings["anthropic-thinking"].get_attribute("data-timing") == "none"
    assert "paced evenly" in timings["anthropic-thinking"].text_content()


def test_a_capture_recorded_with_real_timing_says_recorded(page, server):
    body = (
        b'{"type":"header","format":"streamscope.timed","version":1,"created":'
        b'"2026-11-29T10:00:00Z","source":{"url":"https://example.test/v1/chat/completions"},'
        b'"request":{},"response":{}}\n'
        + b'{"type":"read","t":300.0,"text":"data: {\\"object\\":\\"chat.completion.chunk\\",'
        b'\\"choices\\":[{\\"index\\":0,\\"delta\\":{\\"content\\":\\"Hi\\"}}]}\\n\\n"}\n'
        + b'{"type":"read","t":320.0,"text":"data: [DONE]\\n\\n"}\n'
        + b'{"type":"end","t":321.0,"reason":"done"}\n'
    )
    status, answer = upload(server, body, title="recorded")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    timing = page.get_by_test_id("stream-timing").first
    assert timing.get_attribute("data-timing") == "recorded"
    play_to_end(page)
    assert metric(page, "timing_source").get_attribute("data-value") == "recorded"


def test_the_offline_export_of_a_demo_says_its_timing_is_synthesized(page, tmp_path):
    from .test_anywhere import exported

    page.goto(exported(tmp_path, "tool-calls-parallel").as_uri())
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    assert_synthesized(page)
