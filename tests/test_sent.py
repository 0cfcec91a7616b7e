"""A value's JSON text as it was sent (app/domain/sent.py), as logprob entries are kept."""

from __future__ import annotations

import orjson

from app.domain.sent import sent_items, sent_text

PAYLOAD = (
    b'{"choices":[{"index":0},{"logprobs":{"content":[{"logprob":-0.10} , {"t":"\\u00e9"}]}}]}'
)


def test_a_value_is_its_text_as_sent_found_by_its_path() -> None:
    assert sent_text(PAYLOAD, ("choices", 1, "logprobs", "content")) == (
        b'[{"logprob":-0.10} , {"t":"\\u00e9"}]'
    )
    assert sent_text(PAYLOAD, ("choices", 1)) == PAYLOAD[len(b'{"choices":[{"index":0},') : -2]


def test_a_key_sent_twice_is_its_last_value_as_orjson_reads_it() -> None:
    twice = b'{"a":[1],"a":[2, 3]}'
    assert orjson.loads(twice)["a"] == [2, 3]
    assert sent_text(twice, ("a",)) == b"[2, 3]"


def test_text_payloads_give_utf8() -> None:
    assert sent_text('{"a": ["é"]}', ("a",)) == '["é"]'.encode()


def test_no_such_value_is_none() -> None:
    for path in (("missing",), ("choices", 5), ("choices", "x"), ("choices", 0, "index", "y")):
        assert sent_text(PAYLOAD, path) is None
    assert sent_text(b"not json", ("a",)) is None


def test_items_are_the_list_without_its_brackets() -> None:
    entries = [{"logprob": -0.1}, {"t": "é"}]
    path = ("choices", 1, "logprobs", "content")
    assert sent_items(PAYLOAD, path, entries) == b'{"logprob":-0.10} , {"t":"\\u00e9"}'


def test_a_list_sent_over_several_lines_is_put_on_one() -> None:
    pretty = b'{"a": [\n  {"t": "x y",\n   "n": 1.50}\n]}'
    assert sent_items(pretty, ("a",), [{"t": "x y", "n": 1.5}]) == b'{"t":"x y","n":1.50}'


def test_without_the_exact_text_the_items_are_written_out() -> None:
    """A repaired payload (the lenient decoder's), or a path that is not a list there."""
    entries = [{"logprob": -0.1}]
    assert sent_items(None, ("a",), entries) == b'{"logprob":-0.1}'
    assert sent_items(b'{"a": {"b": 1}}', ("a",), entries) == b'{"logprob":-0.1}'
    odd = b'{"a": [1, {"b": [{"logprob": -0.10}]}]}'  # a number on the way: not followed
    assert sent_items(odd, ("a", 1, "b"), entries) == b'{"logprob":-0.1}'


def test_a_step_sent_as_null_is_no_value() -> None:
    assert sent_text(b'{"a": null}', ("a", "b")) is None
    assert sent_text(b'{"a": [null]}', ("a", 0, "b")) is None
