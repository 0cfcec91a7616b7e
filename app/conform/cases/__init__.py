"""The cases of the battery, one module each (docs/conform.md, "Cases"): adding a case is one
module with its ``CASE`` record, one line here, and its tests (tests/conform)."""

from __future__ import annotations

from ..model import Case
from . import (
    bad_request,
    concurrent,
    disconnect,
    include_usage,
    json_schema,
    logprobs,
    long,
    max_tokens,
    n2,
    no_usage,
    plain,
    reasoning,
    stop_sequence,
    tool_none,
    tool_parallel,
    tool_required,
    tool_result_turn,
    tool_single,
    unicode,
    usage,
)

CASES: tuple[Case, ...] = (
    plain.CASE,
    long.CASE,
    unicode.CASE,
    stop_sequence.CASE,
    max_tokens.CASE,
    include_usage.CASE,
    no_usage.CASE,
    usage.CASE,
    n2.CASE,
    logprobs.CASE,
    tool_single.CASE,
    tool_parallel.CASE,
    tool_required.CASE,
    tool_none.CASE,
    tool_result_turn.CASE,
    json_schema.CASE,
    reasoning.CASE,
    bad_request.CASE,
    disconnect.CASE,
    concurrent.CASE,
)
BY_NAME = {case.name: case for case in CASES}
