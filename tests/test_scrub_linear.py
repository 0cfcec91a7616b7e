"""Scrubbing costs time in proportion to what it reads (issue 26, item 1; docs/security.md,
"Scrubbing in linear time").

Every regular expression of the scrubbers and the log filter is found by looking through their
modules, so a pattern added later is covered without being listed. Each is searched over its
own worst inputs (tests/adversarial.py: pieces of the pattern repeated) at two sizes four times
apart, and so is each scrubber as an upload reaches it: the cost may grow about four times,
and a pattern that rescans what it already read grows sixteen. The ratio is judged, not a time.
Before the fix the JWT shape grew 17x on ``-eyJ``, the string rule 17x on ``\\"``, the first
header line 19x on tabs, the HAR form rule 17x, and the log filter's query and user-info rules
16x-18x.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.captures.scrub import REDACTED, sweep
from app.captures.scrub.redactions import Redactions
from app.captures.scrub.rules import key_matches
from app.captures.scrubbing import scrub
from app.web.logs import QUERY, _without_query

from .adversarial import GROWTH, Growth, as_text, pumps, repeated, searched, worst_growth

pytestmark = pytest.mark.slow

# Every module that holds a pattern run over what a capture, a recording or a log line holds.
MODULES = (
    "app.captures.scrub.rules",
    "app.captures.scrub.strings",
    "app.captures.scrub.text",
    "app.captures.scrub.curl",
    "app.captures.scrub.har",
    "app.captures.scrub.values",
    "app.live.redact",
    "app.web.logs",
)
# Linear work grows GROWTH (4) times; quadratic, 16. Past this the cost grows too fast.
MAX_RATIO = 2.5 * GROWTH


def patterns() -> dict[str, re.Pattern[Any]]:
    found: dict[str, re.Pattern[Any]] = {}

    def visit(name: str, value: object, depth: int = 0) -> None:
        if isinstance(value, re.Pattern):
            found.setdefault(name, value)
        elif isinstance(value, (tuple, list)) and depth < 3:
            for index, item in enumerate(value):
                visit(f"{name}[{index}]", item, depth + 1)

    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            visit(f"{module_name.rsplit('.', 1)[1]}.{name}", value)
    unique: dict[int, tuple[str, re.Pattern[Any]]] = {}
    for name, pattern in found.items():
        unique.setdefault(id(pattern), (name, pattern))
    return dict(unique.values())


PATTERNS = patterns()


def test_the_patterns_are_found():
    names = set(PATTERNS)
    for expected in ("text._FIELD", "text._HIDING", "strings.TOKEN", "logs.QUERY", "har._FORM"):
        assert expected in names
    assert sum(name.startswith("rules.KEY_PATTERNS") for name in names) >= 20


def judge(growth: Growth, what: str) -> None:
    assert growth.ratio < MAX_RATIO, (
        f"{what}: {growth.pump!r} repeated costs {growth.small * 1000:.1f} ms at "
        f"{growth.size} bytes and {growth.large * 1000:.1f} ms at {GROWTH}x that "
        f"({growth.ratio:.1f}x, linear is about {GROWTH}x)"
    )


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_scrubbing_pattern_is_searched_in_linear_time(name):
    pattern = PATTERNS[name]
    growth = worst_growth(
        searched(pattern), pumps(pattern), lambda pump, n: as_text(pattern, repeated(b"", pump, n))
    )
    judge(growth, name)


# The attacks as they came (an SSE data line, a string that never closes), and the pieces of
# the most expensive patterns, each in the frame of the scrubber that reads it.
SWEEP_PUMPS = (b"eyJ-", b'\\"', b"\t", b"-eyJ", b"\\u0073k-", b"\\/", b'\\"api_key\\":', b"&key=",
               b"://a", b"Bearer ", b"\nx-api-key:", b'"api_key":', b"sk-", b"\\n")  # fmt: skip
FRAMES = {
    "sse": (b"data: ", b"\n\n"),
    "jsonl": (b'{"choices":[{"delta":{"content":"', b'"}}]}\n'),
    "curl": (b"HTTP/1.1 200 OK\r\nx-api-key: ", b"\r\n\r\ndata: {}\n\n"),
    "docs": (b"```json\n{", b"}\n```\n"),
}


@pytest.mark.parametrize("fmt", sorted(FRAMES))
def test_each_text_scrubber_is_linear_on_the_worst_input(fmt):
    prefix, suffix = FRAMES[fmt]

    def call(data: bytes) -> object:
        try:
            return scrub(data, fmt)
        except ValueError:  # refused: also an answer, and it must come as fast
            return None

    growth = worst_growth(
        call, SWEEP_PUMPS, lambda pump, n: repeated(prefix, pump, n, suffix), keep=3
    )
    judge(growth, f"scrub as {fmt}")


def test_the_sweep_is_linear_on_escaped_literals_nested_and_repeated():
    """The sweep decodes a JSON string whose escapes could hide a secret and sweeps what it
    holds again, so nesting multiplies the work by its depth, which escaping bounds (each
    level doubles the backslashes)."""
    nested = [b'"\\u0041 \\"x\\": \\"\\\\u0041\\" ', b'"\\u0041", ', b'"\\/\\/", ']
    growth = worst_growth(
        lambda data: sweep(data, Redactions()), nested, lambda p, n: repeated(b"", p, n), keep=3
    )
    judge(growth, "sweep of escaped literals")


# ------------------------------------------------------------------ the same matches as before
# The patterns as they were before the fix: the linear forms must find exactly what they found.
OLD_JWT = re.compile(
    rb"eyJ(?<![A-Za-z0-9_]eyJ)[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"
)
OLD_QUERY = re.compile(r"((?:\b[A-Za-z][A-Za-z0-9+.\-]*://|/)[^\s?#'\"<>]*)\?[^\s'\"<>]*")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["eyJ", "a", "b0", "-", ".", "_", "x", " ", "eyJabcdef"]), max_size=40)
)
def test_the_linear_jwt_shape_finds_what_the_old_one_found(pieces):
    text = "".join(pieces).encode()
    new = [m.span() for kind, m in key_matches(text) if kind == "jwt"]
    assert new == [m.span() for m in OLD_JWT.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["/", "?", "a", "#", " ", "http://", "x.y", "=", '"', "&"]), max_size=30
    )
)
def test_the_linear_query_rule_cuts_what_the_old_one_cut(pieces):
    text = "".join(pieces)
    assert QUERY.sub(_without_query, text) == OLD_QUERY.sub(rf"\1?{REDACTED}", text)
