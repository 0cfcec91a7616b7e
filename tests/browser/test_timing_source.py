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
    assert "paced evenly" in metric(page, "untimed").text_content()


def test_a_capture_without_timing_says_its_metrics_are_unknown(page, server):
    open_demo(page, server, "seed-docs")
    play_to_end(page)
    assert metric(page, "ttft_ms").first.text_content() == "unknown"
    assert metric(page, "timing_source").count() == 0
    assert "timing metrics are unknown" in metric(page, "untimed").first.text_content()
