"""Every rule fires on its trigger and not on its near miss.

A rule's case is in tests/rules/cases.py (run here), or it has its own tests in tests/rules
named ``test_<rule>_triggers...`` and ``test_<rule>_near_miss...`` (a stream that needs more
words than a case). Every registered rule has one or the other.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from app.domain.rules import RULES
from tests.rules.cases import CASES
from tests.rules.kit import findings

HERE = Path(__file__).parent


def named_tests() -> set[str]:
    names: set[str] = set()
    for path in HERE.glob("test_*.py"):
        module = importlib.import_module(f"tests.rules.{path.stem}")
        names.update(n for n in vars(module) if n.startswith("test_"))
    return names


def test_every_rule_has_its_trigger_and_near_miss():
    tests = named_tests()
    missing = []
    for rule in RULES:
        if rule.id in CASES:
            continue
        snake = rule.id.replace("-", "_")
        triggers = any(t.startswith(f"test_{snake}_triggers") for t in tests)
        near = any(t.startswith(f"test_{snake}_near_miss") for t in tests)
        if not (triggers and near):
            missing.append(rule.id)
    assert not missing, f"rules without a trigger and a near miss: {missing}"
    assert set(CASES) <= {rule.id for rule in RULES}, "a case for no rule"


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
