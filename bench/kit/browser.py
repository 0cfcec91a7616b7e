"""Chromium pages for the page benchmarks (bench_player, bench_relay): Debian's Chromium as
the browser tests launch it (``tests/chromium.py``), one viewport, the page scripts under
``bench/js/``, and polling that works under the page's CSP."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from kit import BENCH

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright, ViewportSize

VIEWPORT: ViewportSize = {"width": 1366, "height": 900}


def script(name: str) -> str:
    """``bench/js/<name>.js``: an init script, or a function for ``page.evaluate``."""
    return (BENCH / "js" / f"{name}.js").read_text()


def launch(playwright: Playwright) -> Browser:
    from tests.chromium import ARGS, CHROMIUM

    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def wait_for(page: Page, expression: str, timeout: float, interval_ms: int = 20) -> Any:
    """Poll a JS expression with ``page.evaluate`` until it is truthy (the CSP forbids the
    eval that ``page.wait_for_function`` needs)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {expression}")
        page.wait_for_timeout(interval_ms)


def watch_errors(page: Page) -> list[str]:
    """The page's uncaught errors and console errors, as they come."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    return errors
