"""The judges panel of a stored capture (issue 29, "Where findings show"; docs/judges.md): "Which
clients break on this?" runs the real judges on the server and lists one ``judge`` per verdict
with its client, version and verdict; the page opened again shows the verdicts kept with the
capture. Texts from the capture (a crash quotes the chunk) are text, never markup."""

from __future__ import annotations

import json
import urllib.request

import pytest

from .. import helpers, judges_setup
from ..live_server import LiveServer
from .conftest import SHOTS, watch
from .test_accessibility import violations
from .test_player import wait_until


@pytest.fixture(scope="module")
def judged_server(tmp_path_factory):
    data = judges_setup.data_dir_with_judges(tmp_path_factory, "judges-browser-data")
    live = LiveServer(data).start()
    yield live
    live.stop()


def upload(server, name: str) -> dict:
    req = urllib.request.Request(
        server.url + "/api/captures?title=Judges",
        data=helpers.corpus(name),
        method="POST",
        headers={"Content-Type": "text/event-stream"},
    )
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.loads(response.read())


def judges_listed(page) -> list[dict]:
    return page.eval_on_selector_all(
        '[data-testid="judges"] [data-testid="judge"]',
        "els => els.map(e => ({client: e.dataset.client, version: e.dataset.version, "
        "verdict: e.dataset.verdict, text: e.textContent, html: e.innerHTML}))",
    )


def test_the_judges_panel_runs_the_clients_and_lists_their_verdicts(judged_server, browser):
    answer = upload(judged_server, "mistral-small-tool-call-no-index.sse")
    page = browser.new_page()
    errors = watch(page)
    page.goto(f"{judged_server.url}/c/{answer['id']}")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    panel = page.locator('[data-testid="judges"]')
    assert judges_listed(page) == []
    panel.get_by_role("button", name="Which clients break on this?").click()
    wait_until(page, "document.querySelectorAll('[data-testid=\"judge\"]').length === 4", 120)
    listed = judges_listed(page)
    assert [(j["client"], j["verdict"]) for j in listed] == [
        ("openai-python", "crash"),
        ("langchain-openai", "ok"),
        ("@ai-sdk/openai", "crash"),
        ("@ai-sdk/openai-compatible", "ok"),
    ]
    assert all(j["version"] for j in listed)
    assert "TypeError: list indices must be integers" in listed[0]["text"]
    # The AI SDK's crash quotes the chunk's JSON: as text, no element made of it.
    assert '"tool_calls"' in listed[2]["text"] and "<img" not in listed[2]["html"]
    assert page.locator('[data-testid="judges-status"]').text_content() == "4 verdicts."
    assert violations(page) == []  # axe-core: nothing serious or critical, the panel filled
    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(SHOTS / "judges-panel.png"))
    page.reload()
    wait_until(page, "document.querySelectorAll('[data-testid=\"judge\"]').length === 4", 15)
    assert [j["verdict"] for j in judges_listed(page)] == ["crash", "ok", "crash", "ok"]
    errors.check()
    page.close()
