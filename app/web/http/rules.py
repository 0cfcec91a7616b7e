"""The rule catalogue as a page (``/rules``): one entry per rule, anchored by its id, which is
where a finding's ``doc`` link points (``/rules#<id>``, app/wire.py). Written from the rules
themselves (app/domain/rules ``RULES``)."""

from __future__ import annotations

from flask import Blueprint, render_template

from ...domain.rules import RULES

rule_pages = Blueprint("rules", __name__)


@rule_pages.get("/rules")
def catalogue() -> str:
    ordered = sorted(RULES, key=lambda rule: rule.id)
    return render_template("rules.html", rules=ordered)
