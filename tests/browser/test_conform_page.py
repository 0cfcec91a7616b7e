"""``/conform`` in Chromium against the quirk-injecting upstream on loopback (docs/conform.md,
"In the page"): a battery started from the form shows a row per case as it ends and links to
its report; the report is the card, each case opening its capture in the player at its first
finding; a second battery against a server with a quirk, compared with the first, says what
got worse and which rule appeared; the browser that started a report may delete it."""

from __future__ import annotations

import httpx
import pytest

from ..quirky_upstream import QuirkyUpstream
from .test_accessibility import violations
from .test_player import wait_until

QUIRK = "quirk/sglang-double-finish"
RULE = "finish-reason-repeated"
CASES = ["plain", "tool-single"]


@pytest.fixture(scope="module")
def quirky():
    server = QuirkyUpstream().start()
    yield server
    server.stop()


def run_battery(page, server, quirky, model: str) -> str:
    """Start a battery from /conform, watch its progress to the end; the report's path."""
    page.goto(server.url + "/conform")
    page.get_by_test_id("conform-base-url").fill(quirky.url)
    page.get_by_test_id("conform-model").fill(model)
    page.get_by_role("button", name="None", exact=True).click()
    for name in CASES:
        page.locator(f'[data-testid="conform-case-choice"][data-case="{name}"] input').check()
    # A case of another API only is not offered for chat.
    assert page.locator('[data-testid="conform-case-choice"][data-case="n2"]').is_visible()
    page.get_by_test_id("conform-api").select_option("anthropic")
    assert not page.locator('[data-testid="conform-case-choice"][data-case="n2"]').is_visible()
    page.get_by_test_id("conform-api").select_option("chat")
    page.get_by_test_id("conform-run").click()
    progress = page.get_by_test_id("conform-progress")
    progress.wait_for(state="visible")
    wait_until(
        page,
        "document.querySelector('[data-testid=conform-progress]').dataset.state === 'done'",
        30,
    )
    rows = page.get_by_test_id("conform-progress-row")
    assert [rows.nth(i).get_attribute("data-case") for i in range(rows.count())] == CASES
    assert "running" not in [rows.nth(i).get_attribute("data-verdict") for i in range(rows.count())]
    assert "Done:" in page.get_by_test_id("conform-status").text_content()
    assert violations(page) == []  # the form with its progress
    link = page.get_by_test_id("conform-report-link").get_attribute("href")
    assert link.startswith("/conform/")
    return link


def verdicts(page) -> dict[str, str]:
    rows = page.get_by_test_id("conform-case")
    return {
        rows.nth(i).get_attribute("data-case"): rows.nth(i).get_attribute("data-verdict")
        for i in range(rows.count())
    }


def test_run_a_battery_open_a_case_at_its_finding_compare_and_delete(page, server, quirky, shot):
    clean = run_battery(page, server, quirky, "conform")
    page.get_by_test_id("conform-report-link").click()
    page.get_by_test_id("conform-card").wait_for()
    assert verdicts(page) == {"plain": "pass", "tool-single": "pass"}
    assert page.get_by_test_id("conform-summary").get_attribute("data-passed") == "true"
    shot(page, "conform-report-clean")
    assert violations(page) == []  # axe-core: no serious or critical violation

    quirked = run_battery(page, server, quirky, QUIRK)
    page.goto(server.url + quirked)
    assert verdicts(page) == {"plain": "fail", "tool-single": "warn"}
    plain = page.locator('[data-testid="conform-case"][data-case="plain"]')
    assert plain.get_by_test_id("conform-rule").get_attribute("href") == f"/rules#{RULE}"
    assert "finish stop, stop" in plain.locator('[data-field="why"]').text_content()
    capture = plain.get_by_test_id("conform-capture")
    assert capture.get_attribute("href").endswith(f"?finding={RULE}")
    shot(page, "conform-report-quirk")
    # The case's capture in the player, at its first finding.
    capture.click()
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.wait_for_selector('[data-testid="findings"][data-ready="true"]', state="attached")
    finding = page.locator(f'[data-testid="finding"][data-rule="{RULE}"]')
    wait_until(
        page,
        f"document.querySelector('[data-testid=finding][data-rule=\"{RULE}\"]')?.getAttribute('aria-current') === 'true'",
    )
    assert finding.first.get_attribute("aria-current") == "true"
    assert page.locator("#player").get_attribute("data-state") == "paused"

    # The clean report compared with the quirked one (its link pasted in the form).
    page.goto(server.url + clean)
    page.get_by_test_id("conform-compare-other").fill(server.url + quirked)
    page.get_by_role("button", name="Compare", exact=True).click()
    page.get_by_test_id("conform-compare").wait_for()
    assert page.url == f"{server.url}{clean}/{quirked.removeprefix('/conform/')}"
    row = page.locator('[data-testid="conform-compare-row"][data-case="plain"]')
    assert row.get_attribute("data-change") == "worse"
    assert RULE in row.locator('[data-field="added"]').text_content()
    tool = page.locator('[data-testid="conform-compare-row"][data-case="tool-single"]')
    assert tool.get_attribute("data-change") == "worse"
    assert "2 worse" in page.get_by_test_id("conform-compare-summary").text_content()
    shot(page, "conform-compare")
    assert violations(page) == []

    # This browser started the clean report: it may delete it (its captures go with it).
    page.goto(server.url + clean)
    delete = page.get_by_test_id("conform-delete")
    assert delete.is_visible()
    api = httpx.get(f"{server.url}/api{clean}").json()
    capture_path = api["report"]["cases"][0]["capture"]
    delete.click()
    wait_until(page, "document.querySelector('#conform-report').dataset.state === 'deleted'")
    assert httpx.get(f"{server.url}/api{clean}").status_code == 404
    assert httpx.get(f"{server.url}/api/captures/{capture_path[3:]}").status_code == 404


def test_another_browser_sees_the_report_but_no_delete(page, server, quirky, browser):
    report = run_battery(page, server, quirky, "conform")
    other = browser.new_context()
    try:
        stranger = other.new_page()
        stranger.goto(server.url + report)
        stranger.get_by_test_id("conform-card").wait_for()
        assert set(verdicts(stranger)) == set(CASES)
        assert not stranger.get_by_test_id("conform-delete").is_visible()
    finally:
        other.close()


def test_a_refused_request_is_said_in_the_form(page, server):
    page.goto(server.url + "/conform")
    page.get_by_test_id("conform-base-url").fill("http://127.0.0.1:9/v1")
    page.get_by_test_id("conform-model").fill("m")
    page.get_by_test_id("conform-key-env").select_option("OPENAI_API_KEY")  # pins the URL
    assert page.get_by_test_id("conform-base-url").input_value() == "https://api.openai.com/v1"
    page.get_by_test_id("conform-key-env").select_option("")
    page.get_by_test_id("conform-base-url").fill("http://127.0.0.1:9/v1")
    page.get_by_role("button", name="None", exact=True).click()
    page.get_by_test_id("conform-run").click()
    assert page.get_by_test_id("conform-form-error").text_content() == "Choose at least one case."


def test_a_request_the_server_refuses_is_said_in_the_form(page, server):
    page.goto(server.url + "/conform")
    page.get_by_test_id("conform-base-url").fill("http://127.0.0.1:9/v1")
    page.get_by_test_id("conform-model").fill("m" * 300)
    page.get_by_test_id("conform-run").click()
    error = page.get_by_test_id("conform-form-error")
    wait_until(
        page, "document.querySelector('[data-testid=conform-form-error]').textContent !== ''"
    )
    assert "at most 256 characters" in error.text_content()
    assert page.get_by_test_id("conform-run").is_enabled()
    assert page.get_by_test_id("conform-progress").is_hidden()
    page.errors.expect("400")  # the browser logs the refused request


def test_a_report_still_running_is_read_again_until_it_ends(page, server, fake):
    started = httpx.post(
        f"{server.url}/api/conform",
        json={"base_url": fake.url, "model": "slow:10", "only": ["plain", "no-usage"]},
    ).json()
    page.goto(server.url + started["url"])
    card = page.get_by_test_id("conform-card")
    assert card.get_attribute("data-state") == "running"
    assert "Running:" in page.get_by_test_id("conform-running").text_content()
    # The page reloads as cases end (a selector wait lives through the reloads).
    page.wait_for_selector('#conform-report[data-state="done"]', state="attached", timeout=30000)
    assert set(verdicts(page)) == {"plain", "no-usage"}
    assert page.get_by_test_id("conform-running").count() == 0


def test_list_models_fills_the_model_list(page, server, fake):
    page.goto(server.url + "/conform")
    page.get_by_test_id("conform-base-url").fill(fake.url)
    page.get_by_test_id("conform-list-models").click()
    wait_until(page, "document.querySelectorAll('#conform-models option').length > 0")
    assert "models:" in page.get_by_test_id("conform-status").text_content()
    assert page.get_by_test_id("conform-models-error").is_hidden()
