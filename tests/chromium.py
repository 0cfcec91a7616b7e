"""Debian's Chromium as the browser tests and the page benchmarks launch it (Playwright cannot
download its own browser here)."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("STREAMSCOPE_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
