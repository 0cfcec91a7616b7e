"""The rule catalogue (docs/rules.md): one module per rule, registered here.

Adding a rule is one module with its ``RULE`` record (app/domain/findings/model.py), one line
here, a trigger and a near-miss test (tests/rules), and ``scripts/rules_doc.py --write`` to
regenerate docs/rules.md (tests/rules/test_catalogue.py checks it is current).
"""

from __future__ import annotations

from ..findings.engine import judge
from ..findings.evidence import Evidence
from ..findings.model import Finding, Rule
from ..metrics import DEFAULT_STALL_MS, Metrics
from ..stream import Stream
from ..summary import Folded
from .chat import tool_call_index_missing

RULES: tuple[Rule, ...] = (tool_call_index_missing.RULE,)
BY_ID = {rule.id: rule for rule in RULES}


def find(
    stream: Stream,
    *,
    stall_ms: float = DEFAULT_STALL_MS,
    timeline: Folded | None = None,
    metrics: Metrics | None = None,
) -> list[Finding]:
    """The findings of one stream, in its order."""
    evidence = Evidence(stream, stall_ms=stall_ms, timeline=timeline, metrics=metrics)
    return judge(evidence, RULES)
