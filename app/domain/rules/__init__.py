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
from .chat import (
    choice_index_unexpected,
    chunk_id_changed,
    done_missing,
    empty_choices_chunk,
    error_in_stream,
    finish_reason_empty,
    finish_reason_missing,
    finish_reason_repeated,
    logprobs_shape,
    reasoning_field,
    role_empty,
    role_missing,
    role_repeated,
    tool_call_arguments_not_string,
    tool_call_finish_mismatch,
    tool_call_id_changed,
    tool_call_index_missing,
    tool_call_index_reused,
    tool_call_name_empty,
    tool_call_name_repeated,
    usage_choices_key_missing,
    usage_every_chunk,
    usage_inconsistent,
    usage_with_choices,
)
from .gemini import finish_every_chunk
from .request import (
    choices_count,
    logprobs_missing,
    max_tokens_not_length,
    tools_ignored,
    top_logprobs_count,
    usage_missing,
    usage_unrequested,
)
from .responses import call_id_changed, done_mismatch, item_id_changed, sequence_gap
from .sse import (
    content_type_mismatch,
    keepalive_comment,
    meta_only_event,
    stall,
    stream_truncated,
)

RULES: tuple[Rule, ...] = (
    # chat
    tool_call_index_missing.RULE,
    tool_call_index_reused.RULE,
    tool_call_id_changed.RULE,
    tool_call_name_repeated.RULE,
    tool_call_name_empty.RULE,
    tool_call_arguments_not_string.RULE,
    tool_call_finish_mismatch.RULE,
    finish_reason_repeated.RULE,
    finish_reason_empty.RULE,
    finish_reason_missing.RULE,
    done_missing.RULE,
    usage_every_chunk.RULE,
    usage_with_choices.RULE,
    usage_choices_key_missing.RULE,
    usage_inconsistent.RULE,
    empty_choices_chunk.RULE,
    role_repeated.RULE,
    role_empty.RULE,
    role_missing.RULE,
    chunk_id_changed.RULE,
    choice_index_unexpected.RULE,
    reasoning_field.RULE,
    logprobs_shape.RULE,
    error_in_stream.RULE,
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
    # sse
    keepalive_comment.RULE,
    meta_only_event.RULE,
    content_type_mismatch.RULE,
    stream_truncated.RULE,
    stall.RULE,
    # request
    usage_missing.RULE,
    usage_unrequested.RULE,
    choices_count.RULE,
    logprobs_missing.RULE,
    top_logprobs_count.RULE,
    max_tokens_not_length.RULE,
    tools_ignored.RULE,
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
