"""Every rule fires on its trigger and not on its near miss (tests/rules/cases.py)."""

from __future__ import annotations

import pytest

from app.domain.rules import RULES
from tests.rules.cases import CASES
from tests.rules.kit import findings


def test_every_rule_has_its_trigger_and_near_miss():
    assert sorted(CASES) == sorted(rule.id for rule in RULES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_fires_on_its_trigger(rule):
    case = CASES[rule]
    found = [f for f in findings(case.trigger, case.fmt, **case.options) if f.rule == rule]
    assert found, f"{rule} did not fire on its trigger"
    assert all(f.message for f in found)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_does_not_fire_on_its_near_miss(rule):
    case = CASES[rule]
    found = [f for f in findings(case.near_miss, case.fmt, **case.options) if f.rule == rule]
    assert not found, f"{rule} fired on its near miss: {found}"
