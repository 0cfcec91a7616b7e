"""The real captures that have no golden file (the dialect captures, and the chat captures
the SDK parity tests cover) break no rule: each was read by hand when the rules came, and
none shows a quirk the catalogue names (their findings list, reviewed, is empty). The chat
captures with goldens carry their findings there, justified (tests/golden, findings_review).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.captures import read_capture
from app.domain.rules import find
from tests.golden import regen

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
WITHOUT_GOLDEN = sorted(
    [p for p in (CAPTURES / "dialects").iterdir() if p.is_file() and p.name != "SOURCES.md"]
    + [CAPTURES / name for name in regen.sdk_parity_captures()]
)


def test_there_are_captures_to_check():
    assert len(WITHOUT_GOLDEN) >= 50


@pytest.mark.parametrize("path", WITHOUT_GOLDEN, ids=lambda p: p.name)
def test_a_real_capture_without_a_golden_breaks_no_rule(path):
    capture = read_capture(path.read_bytes())
    found = [f"{f.rule}: {f.message}" for s in capture.streams for f in find(s)]
    assert found == []
