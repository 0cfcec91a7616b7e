"""The catalogue: every rule module registered, its record complete, docs/rules.md current."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from app.domain.findings.engine import ANY
from app.domain.rules import RULES
from app.domain.rules.catalogue import GROUPS, document, group_of

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "app" / "domain" / "rules"
HELPERS = {"__init__", "family", "common", "catalogue"}
# The ids the findings issue names: a contract (links, --fail-on, JUnit names use them).
CONTRACT = [
    "tool-call-index-missing",
    "tool-call-index-reused",
    "tool-call-id-changed",
    "tool-call-name-repeated",
    "tool-call-arguments-not-string",
    "tool-call-finish-mismatch",
    "finish-reason-repeated",
    "finish-reason-empty",
    "finish-reason-missing",
    "done-missing",
    "usage-every-chunk",
    "usage-with-choices",
    "usage-choices-key-missing",
    "usage-inconsistent",
    "empty-choices-chunk",
    "role-repeated",
    "role-empty",
    "role-missing",
    "chunk-id-changed",
    "choice-index-unexpected",
    "reasoning-field",
    "logprobs-shape",
    "error-in-stream",
    "keepalive-comment",
    "meta-only-event",
    "content-type-mismatch",
    "stream-truncated",
    "stall",
    "message-spliced",
    "block-not-stopped",
    "delta-after-stop",
    "usage-not-cumulative",
    "sequence-gap",
    "item-id-changed",
    "call-id-changed",
    "done-mismatch",
    "finish-every-chunk",
    "usage-missing",
    "usage-unrequested",
    "choices-count",
    "logprobs-missing",
    "top-logprobs-count",
    "max-tokens-not-length",
    "tools-ignored",
]


def test_every_rule_module_is_registered_once():
    modules = [p for p in PACKAGE.rglob("*.py") if p.stem not in HELPERS and p.parent != PACKAGE]
    registered = {rule.check.__module__ for rule in RULES}
    for path in modules:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        module = importlib.import_module(name)
        assert hasattr(module, "RULE"), f"{name} is not a rule module"
        assert name in registered, f"{name} is not registered in RULES"
        assert module.RULE.id.replace("-", "_") == path.stem, f"{name} is not named after its rule"
    assert len({rule.id for rule in RULES}) == len(RULES)


def test_the_issue_contract_ids_all_exist():
    assert set(CONTRACT) <= {rule.id for rule in RULES}


def test_every_rule_record_is_complete():
    for rule in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", rule.id), rule.id
        assert rule.severity in ("error", "warning", "info")
        assert rule.dialects, rule.id
        assert rule.dialects == ANY or all(re.fullmatch(r"[a-z-]+", d) for d in rule.dialects)
        assert rule.title and rule.what.endswith(".") and rule.why.endswith("."), rule.id
        assert rule.breaks, f"{rule.id} names no client it breaks"
        assert rule.sources and all(s.startswith("https://") for s in rule.sources), rule.id
        assert group_of(rule) in GROUPS, rule.id


def test_docs_rules_md_is_current():
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == document(doc, RULES), "run python scripts/rules_doc.py"
    for rule in RULES:
        assert f"### `{rule.id}`" in doc
