"""``inspect --json`` written in pieces (jsonout.py) is byte for byte what orjson writes whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import jsonout
from app.captures import read_capture
from app.report import render_json, write_json

CAPTURES = Path(__file__).parent / "captures"
FILES = sorted(p for p in CAPTURES.rglob("*") if p.is_file() and p.suffix != ".json")

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.text(alphabet=st.sampled_from('a"\\\n\x01é\u2028😀<'), min_size=3)
    | st.sampled_from([b"[1,2]", b'{"a":"b"}', b"3"]).map(orjson.Fragment),
    lambda inner: st.lists(inner, max_size=12) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_pieces_join_to_what_orjson_writes(value: Any) -> None:
    saved = jsonout.SLICE, jsonout.TEXT
    jsonout.SLICE, jsonout.TEXT = 3, 2  # long lists and texts in parts, even these small ones
    try:
        written = b"".join(jsonout.pieces(value))
    finally:
        jsonout.SLICE, jsonout.TEXT = saved
    assert written == orjson.dumps(value, option=orjson.OPT_INDENT_2)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CAPTURES)))
def test_inspect_json_in_pieces_is_the_whole_document(path: Path) -> None:
    capture = read_capture(path.read_bytes())
    out: list[bytes] = []
    write_json(capture, out.append)
    assert b"".join(out) == render_json(capture)


def test_a_long_output_is_written_in_pieces() -> None:
    chunk = (
        b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
        b'"delta":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":-0.5,'
        b'"bytes":[120],"top_logprobs":[]}]}}]}\n\n'
    )
    capture = read_capture(chunk * 50_000)
    out: list[bytes] = []
    write_json(capture, out.append)
    whole = render_json(capture)
    assert b"".join(out) == whole and len(whole) > 3 * jsonout.FLUSH
    assert max(map(len, out)) < jsonout.FLUSH + 64 * 1024  # never much more than a flush
