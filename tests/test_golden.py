"""Every real capture outside the SDK parity set matches its hand-reviewed golden output."""

from __future__ import annotations

import json

import pytest

from .golden import regen

TARGETS = regen.targets()


def test_every_capture_has_a_golden_and_no_golden_is_stale():
    goldens = {p.stem for p in regen.GOLDEN.glob("*.json")}
    assert goldens == set(TARGETS)
    assert len(goldens) >= 37


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_capture_matches_its_golden(name):
    golden = json.loads((regen.GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert golden["review"].strip(), "a golden needs its hand review"
    current = json.loads(regen.dump(regen.machine(TARGETS[name])))
    expected = {k: v for k, v in golden.items() if k not in ("review", "findings_review")}
    assert current == expected
    serious = [f for s in current["streams"] for f in s["findings"] if "(info)" not in f]
    if serious:
        review = golden.get("findings_review", "")
        assert review.strip(), f"findings to justify: {serious}"
        for finding in serious:
            assert finding.split(" ")[0] in review, f"{finding} is not justified in findings_review"
