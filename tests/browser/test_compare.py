"""Compare in Chromium: two demos and two choices of one capture on one clock with one
transport, lined up at the request start or the first token, their diff and metrics table
checked against ``streamscope inspect --json``; hostile capture text stays text; "Compare
with…" leads there from a player page."""

from __future__ import annotations

import json
import re

from app.captures import read_capture
from app.demos import find
from app.domain.compare import OUTPUT_EVENTS
from app.domain.textdiff import word_tokens

from ..test_api import upload
from ..test_compare import inspect_json, lcs_length
from .test_player import Schedule, wait_until
from .test_share import xss_capture

DIFF = """[...document.querySelectorAll('[data-testid=diff][data-lane=answer] [data-op]')].map(e => [e.dataset.op, e.textContent])"""
METRICS = """Object.fromEntries([...document.querySelectorAll('[data-testid=compare-metrics] tr[data-metric]')].map(r => [r.dataset.metric, [JSON.parse(r.dataset.a), JSON.parse(r.dataset.b)]]))"""


def open_compare(page, server, path: str) -> None:
    page.goto(server.url + path)
    page.wait_for_selector('#compare[data-loaded="true"]', state="attached", timeout=20000)


def side_texts(page, side: str) -> list[str]:
    return page.eval_on_selector_all(
        f'[data-testid=compare-side][data-side="{side}"] [data-testid=choice-text]',
        "els => els.map(e => e.textContent)",
    )


def output(name: str, choice: int = 0) -> dict:
    stream = inspect_json(name)["streams"][0]
    return {o["index"]: o for o in stream["normalized"]["outputs"]}[choice], stream


def check_table(page, a: tuple[str, int], b: tuple[str, int]) -> None:
    (out_a, stream_a), (out_b, stream_b) = output(*a), output(*b)
    pieces = page.evaluate(DIFF)
    assert "".join(t for op, t in pieces if op != "added") == out_a["text"]
    assert "".join(t for op, t in pieces if op != "removed") == out_b["text"]
    same = sum(len(word_tokens(t)) for op, t in pieces if op == "same")
    assert same == lcs_length(word_tokens(out_a["text"]), word_tokens(out_b["text"]))
    values = page.evaluate(METRICS)
    for key in ("ttft_ms", "ttfo_ms", "e2el_ms", "itl_p95_ms", "tokens_per_s", "output_tokens"):
        assert values[f"metrics.{key}"] == [stream_a["metrics"][key], stream_b["metrics"][key]], key
    assert values["normalized.stop_reason"] == [out_a["stop_reason"], out_b["stop_reason"]]


def first_output_ms(name: str) -> float:
    stream = read_capture(find(name).read_bytes()).streams[0]
    schedule = Schedule(stream)
    return next(
        schedule.times[i] for i, e in enumerate(stream.events) if isinstance(e, OUTPUT_EVENTS)
    )


def test_two_demos_on_one_clock_lined_up_at_the_start_or_the_first_token(page, server, shot):
    open_compare(page, server, "/compare/demos/plain-text/demos/reasoning")
    check_table(page, ("plain-text", 0), ("reasoning", 0))
    schedules = [
        Schedule(read_capture(find(n).read_bytes()).streams[0]) for n in ("plain-text", "reasoning")
    ]
    # One transport: a seek moves both sides to what each had at that moment.
    page.get_by_test_id("player-seek").fill("1000")
    assert page.evaluate("window.streamscope.pair.sides.map(s => s.cursor)") == [
        s.at(1000) for s in schedules
    ]
    # Lined up at the first token: the later side is shifted by the difference.
    page.get_by_test_id("align-first-token").check()
    firsts = [first_output_ms("plain-text"), first_output_ms("reasoning")]
    shifts = [f - min(firsts) for f in firsts]
    wait_until(page, "document.querySelector('#compare').dataset.align === 'first-token'")
    got = page.eval_on_selector_all(
        "[data-testid=compare-side]", "els => els.map(e => Number(e.dataset.shift))"
    )
    assert got == shifts and max(shifts) > 0
    assert "align=first-token" in page.url
    page.get_by_test_id("player-seek").fill("800")
    assert page.evaluate("window.streamscope.pair.sides.map(s => s.cursor)") == [
        s.at(800 + shift) for s, shift in zip(schedules, shifts, strict=True)
    ]
    # Played to the end, each side shows its whole answer.
    page.get_by_test_id("player-speed").select_option("max")
    page.get_by_test_id("player-play").click()
    page.wait_for_selector('#compare[data-state="ended"]', state="attached", timeout=15000)
    assert side_texts(page, "a") == [output("plain-text")[0]["text"]]
    assert side_texts(page, "b") == [output("reasoning")[0]["text"]]
    shot(page, "compare-two-demos")
    # A copied link reopens the same moment and alignment.
    page.get_by_test_id("player-step-back").click()
    page.get_by_test_id("copy-link").click()
    link = page.evaluate("document.querySelector('#compare').dataset.copied")
    cursors = page.evaluate("window.streamscope.pair.sides.map(s => s.cursor)")
    page.goto(link)
    page.wait_for_selector('#compare[data-loaded="true"]', state="attached", timeout=20000)
    assert page.evaluate("window.streamscope.pair.sides.map(s => s.cursor)") == cursors


def test_two_choices_of_one_capture(page, server, shot):
    open_compare(page, server, "/compare/demos/n3-choices:0/demos/n3-choices:2")
    check_table(page, ("n3-choices", 0), ("n3-choices", 2))
    page.get_by_test_id("player-end").click()
    for side, choice in (("a", 0), ("b", 2)):
        shown = page.eval_on_selector_all(
            f'[data-testid=compare-side][data-side="{side}"] [data-testid=choice]',
            "els => els.map(e => e.dataset.choice)",
        )
        assert shown == [str(choice)], "a side shows only the output it compares"
        assert side_texts(page, side) == [output("n3-choices", choice)[0]["text"]]
    shot(page, "compare-two-choices")


def test_the_text_size_control_and_the_contrast_theme_work_on_compare(page, server):
    """Presentation mode (docs/teaching.md) on the compare page too: its transport's text-size
    control and ?zoom=, and ?theme=contrast."""
    open_compare(page, server, "/compare/demos/plain-text/demos/reasoning?zoom=1.5&theme=contrast")
    root = "document.documentElement.dataset"
    assert page.evaluate(f"[{root}.zoom, {root}.theme]") == ["1.5", "contrast"]
    assert page.get_by_test_id("player-zoom").input_value() == "1.5"
    page.get_by_test_id("player-zoom").select_option("2.5")
    assert page.evaluate(f"{root}.zoom") == "2.5"


def test_dialects_compare_with_each_other(page, server):
    open_compare(page, server, "/compare/demos/anthropic-web-search/demos/gemini-code-execution")
    check_table(page, ("anthropic-web-search", 0), ("gemini-code-execution", 0))
    page.get_by_test_id("player-speed").select_option("max")
    page.get_by_test_id("player-play").click()
    page.wait_for_selector('#compare[data-state="ended"]', state="attached", timeout=15000)
    assert (
        page.locator("[data-testid=compare-side][data-side=a] [data-testid=tool-call]").count() >= 1
    )
    assert (
        page.locator("[data-testid=compare-side][data-side=b] [data-testid=tool-call]").count() >= 1
    )
    assert page.get_by_test_id("compare-tool").count() >= 1


def test_hostile_capture_text_in_compare_runs_no_script(page, server, shot):
    status, answer = upload(
        server,
        xss_capture(),
        title="<script>window.__xss=7</script><img src=x onerror=window.__xss=8>",
    )
    assert status == 201
    open_compare(page, server, f"/compare/{answer['id']}/demos/plain-text")
    page.get_by_test_id("player-end").click()
    page.wait_for_timeout(300)
    assert page.evaluate("window.__xss") is None
    pieces = page.evaluate(DIFF)
    removed = "".join(t for op, t in pieces if op != "added")
    assert "<img src=x onerror=window.__xss=1>" in removed
    assert (
        page.get_by_test_id("compare-tool-name").first.text_content()
        == "<img src=x onerror=window.__xss=4>"
    )
    assert (
        page.locator("[data-side=a] [data-testid=compare-side-title]")
        .text_content()
        .startswith("<script>")
    )
    assert (
        page.locator("[data-side=a] [data-testid=tool-name]").text_content()
        == "<img src=x onerror=window.__xss=4>"
    )
    assert page.locator("img[src=x], svg[onload]").count() == 0
    shot(page, "compare-hostile")


def test_compare_with_from_a_player_page(page, server):
    page.goto(server.url + "/demos/n3-choices")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.get_by_test_id("compare-with").click()
    page.get_by_test_id("compare-other").fill(":1")
    page.get_by_test_id("compare-other").press("Enter")
    page.wait_for_url("**/compare/demos/n3-choices/demos/n3-choices:1", timeout=15000)
    page.wait_for_selector('#compare[data-loaded="true"]', state="attached", timeout=20000)
    assert (
        json.loads(page.locator("tr[data-metric='dialect']").get_attribute("data-a"))
        == "chat-completions"
    )


def test_the_ready_line_names_both_counts_of_each_side(page, server):
    """Issue 28, item 21 on compare: each side's raw events and the timeline events read from
    them, each named (as the player's ready line), not one bare "events" count."""
    page.goto(server.url + "/compare/demos/plain-text/demos/tool-calls-parallel")
    wait_until(
        page,
        "document.querySelector('[data-testid=player-status]').textContent.startsWith('Ready')",
    )
    ready = page.get_by_test_id("player-status").text_content()
    assert re.fullmatch(
        r"Ready: A \d+ raw events, read as \d+ timeline events; B \d+ raw events, read as \d+ timeline events\.",
        ready,
    ), ready
