"""Browser tests: Playwright driving Debian's Chromium against a real ``streamscope serve``.

Any page error or console error fails the test. Chromium missing is a failure, not a skip:
the README's test command installs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from ..chromium import ARGS, CHROMIUM
from ..live_server import LiveServer

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("browser-data")).start()
    yield live
    live.stop()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: run the README's test command, which installs it"
        )
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


class PageErrors(list):
    def expect(self, fragment: str) -> None:
        """An error the test caused on purpose (a refused upload): take it off the list."""
        matching = [e for e in self if fragment in e]
        assert matching, f"expected an error containing {fragment!r}"
        for error in matching:
            self.remove(error)

    def check(self) -> None:
        assert not self, "page or console errors:\n" + "\n".join(self)


def watch(page) -> PageErrors:
    errors = PageErrors()
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    return errors


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    errors = watch(page)
    page.errors = errors
    yield page
    errors.check()


@pytest.fixture
def shot():
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
