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
from .anthropic import block_not_stopped, delta_after_stop, message_spliced, usage_not_cumulative
from .chat import tool_call_index_missing
from .gemini import finish_every_chunk
from .responses import call_id_changed, done_mismatch, item_id_changed, sequence_gap

RULES: tuple[Rule, ...] = (
    tool_call_index_missing.RULE,
    # Anthropic, Responses, Gemini
    message_spliced.RULE,
    block_not_stopped.RULE,
    delta_after_stop.RULE,
    usage_not_cumulative.RULE,
    sequence_gap.RULE,
    item_id_changed.RULE,
    call_id_changed.RULE,
    done_mismatch.RULE,
    finish_every_chunk.RULE,
)
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
