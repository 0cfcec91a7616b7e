"""The run file (docs/capture-format.md, "A run"): written by ``run_lines``, cut back into its
captures by ``split_run``, with the line of each problem."""

from __future__ import annotations

import orjson

from app.captures.runfile import MAX_RUN_CAPTURES, is_run_file, run_lines, split_run


def _capture(n: int) -> bytes:
    header = {"type": "header", "format": "streamscope.timed", "version": 1, "created": n}
    read = {"type": "read", "t": 1.0, "text": f"data: {n}\n\n"}
    end = {"type": "end", "t": 2.0, "reason": "done"}
    return b"".join(orjson.dumps(r) + b"\n" for r in (header, read, end))


def test_a_written_run_splits_back_into_its_captures_byte_for_byte():
    captures = {"a": _capture(1), "b": _capture(2)[:-1]}  # one without its last newline
    data = b"".join(run_lines("run-1", ["a", "b"], captures.__getitem__))
    assert is_run_file(data.split(b"\n", 1)[0])
    found = split_run(data)
    assert found.problems == []
    assert found.run == "run-1"
    assert [p.capture_id for p in found.parts] == ["a", "b"]
    assert [p.data for p in found.parts] == [_capture(1), _capture(2)]
    assert [p.line for p in found.parts] == [2, 5]


def test_a_capture_that_reads_empty_is_left_out_of_the_file():
    data = b"".join(run_lines("r", ["a", "gone"], {"a": _capture(1), "gone": b""}.__getitem__))
    assert len(split_run(data).parts) == 1


def test_problems_say_the_line():
    assert split_run(b"not json\n").problems[0][0] == 1
    assert not is_run_file(b'{"type":"header","format":"streamscope.timed"}')
    stray = b'{"type":"run","format":"streamscope.run","version":1,"run":"r","captures":["a"]}\n'
    found = split_run(stray + b'{"type":"read"}\n' + _capture(1) + _capture(2))
    assert (2, "a record before the first capture's header") in found.problems
    assert any("names 1 captures and the file holds 2" in what for _, what in found.problems)
    assert [p.capture_id for p in found.parts] == ["a", None]
    assert split_run(stray).problems == [(2, "the file holds no capture (no header record)")]


def test_a_file_of_too_many_captures_keeps_the_first_ones_and_says_so():
    ids = [str(i) for i in range(MAX_RUN_CAPTURES + 3)]
    data = b"".join(run_lines("r", ids, lambda i: _capture(int(i))))
    found = split_run(data)
    assert len(found.parts) == MAX_RUN_CAPTURES
    assert any("more than" in what for _, what in found.problems)
