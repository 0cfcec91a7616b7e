"""A run file (docs/capture-format.md, "A run"): several calls' timed captures in one JSON Lines
file, after a first ``run`` record naming them.

``run_lines`` writes one, a capture at a time; ``split_run`` cuts one into its captures, each
kept as its own bytes (a reader reads each as a timed capture), with what was wrong where (the
line) when the file is not as written. Pure: bytes in, bytes out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..domain.callruns import MAX_CALLS

RUN_FORMAT = "streamscope.run"
RUN_VERSION = 1
MAX_RUN_CAPTURES = MAX_CALLS  # a file holds at most a run's calls
MAX_RUN_NAME = 100


def run_record(run: str, capture_ids: list[str]) -> bytes:
    """The first line of a run file: the run's id and the captures that follow, in order."""
    record = {"type": "run", "format": RUN_FORMAT, "version": RUN_VERSION, "run": run}
    return orjson.dumps({**record, "captures": capture_ids}) + b"\n"


def run_lines(run: str, capture_ids: list[str], read: Callable[[str], bytes]) -> Iterator[bytes]:
    """A run file: its ``run`` record, then each capture's timed capture as ``read`` gives it,
    one in memory at a time, each ending in a newline (one that reads empty is left out)."""
    yield run_record(run, capture_ids)
    for capture_id in capture_ids:
        data = read(capture_id)
        if data:
            yield data if data.endswith(b"\n") else data + b"\n"


def is_run_file(first_line: bytes) -> bool:
    """Whether a file's first line is a run record."""
    try:
        record = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return False
    return (
        isinstance(record, dict)
        and record.get("type") == "run"
        and record.get("format") == RUN_FORMAT
    )


@dataclass
class RunPart:
    """One capture of a run file: its id as the file names it (None past the named ones), its
    bytes, and the line it starts on (1-based)."""

    capture_id: str | None
    data: bytes
    line: int


@dataclass
class RunFile:
    run: str | None = None
    version: Any = None
    parts: list[RunPart] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, what)


def _is_header(line: bytes) -> bool:
    if not line.startswith(b"{") or b'"header"' not in line[:200]:
        return False
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(record, dict) and record.get("type") == "header"


def _read_record(first: bytes, found: RunFile) -> list[Any]:
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError as exc:
        found.problems.append((1, f"the run record is not JSON ({exc})"))
        return []
    if not isinstance(record, dict) or record.get("type") != "run":
        found.problems.append((1, 'the first line is not a {"type":"run"} record'))
        return []
    found.version = record.get("version")
    if found.version != RUN_VERSION:
        found.problems.append((1, f"run file version {found.version!r}: this reads {RUN_VERSION}"))
    run = record.get("run")
    if isinstance(run, str) and 0 < len(run) <= MAX_RUN_NAME:
        found.run = run
    else:
        found.problems.append((1, f"run: a name of 1 to {MAX_RUN_NAME} characters is needed"))
    ids = record.get("captures")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        found.problems.append((1, "captures: a list of capture ids is needed"))
        return []
    return ids


def split_run(data: bytes) -> RunFile:
    """The run file's record and captures: a capture starts at each ``header`` line. Lines
    before the first header (after the run record) are noted, not kept; captures past
    ``MAX_RUN_CAPTURES`` are noted and left out; a count that differs from the record's list
    is noted. Never raises on bad input."""
    found = RunFile()
    first_end = data.find(b"\n")
    first = data[: first_end if first_end >= 0 else len(data)]
    ids = _read_record(first.strip(), found)
    if first_end < 0:
        found.problems.append((1, "the file holds no capture after its run record"))
        return found
    starts: list[tuple[int, int]] = []  # (byte offset, line)
    position, line_no = first_end + 1, 2
    while position < len(data):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end
        text = data[position:end].strip()
        if _is_header(text):
            starts.append((position, line_no))
        elif not starts and text:
            found.problems.append((line_no, "a record before the first capture's header"))
        position, line_no = end + 1, line_no + 1
    if len(starts) > MAX_RUN_CAPTURES:
        found.problems.append(
            (
                starts[MAX_RUN_CAPTURES][1],
                f"more than {MAX_RUN_CAPTURES} captures: the rest left out",
            )
        )
        starts = starts[:MAX_RUN_CAPTURES]
    for index, (start, line) in enumerate(starts):
        stop = starts[index + 1][0] if index + 1 < len(starts) else len(data)
        capture_id = ids[index] if index < len(ids) else None
        found.parts.append(RunPart(capture_id, data[start:stop], line))
    if not starts:
        found.problems.append((2, "the file holds no capture (no header record)"))
    elif ids and len(ids) != len(starts):
        found.problems.append(
            (1, f"the run record names {len(ids)} captures and the file holds {len(starts)}")
        )
    return found
