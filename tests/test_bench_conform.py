"""``python -m bench conform`` runs the battery ``conform`` runs by default (the chat cases) and
exits 0 when every case passes and the ratio is under its target (it ran every registered case,
the Anthropic-only ``usage`` among them, and failed, once that case came)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.conform.cases import CASES

from .live_server import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_the_conform_bench_runs_the_chat_battery_and_passes():
    done = subprocess.run(
        [sys.executable, "-m", "bench", "conform", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    chat = sum("chat" in case.apis for case in CASES)
    assert chat < len(CASES)  # some case does not speak chat, and is left out
    assert f"| verdicts | {chat} pass |" in done.stdout
