"""The judges of a whole capture: for each stream, every judge that speaks its dialect, two at a
time (docs/judges.md). At most ``MAX_STREAMS`` streams of one capture are judged (each
costs a process per judge); the rest get no verdicts."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..domain.judging import judged_bytes, reference
from ..domain.stream import Stream
from ..domain.summary import summarize
from .registry import judges_for
from .runner import Caps, run

MAX_STREAMS = 16
AT_ONCE = 2


def judge_stream(
    stream: Stream,
    caps: Caps,
    node_modules_at: Path | None,
    normalized: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The verdicts on one stream (none when no judge speaks its dialect, or it is not a
    stream of server-sent events); ``normalized`` is its summary's, when the caller has it."""
    judges = judges_for(stream.dialect_name)
    body = judged_bytes(stream)
    if not judges or body is None:
        return []
    if normalized is None:
        normalized = summarize(stream)["normalized"]
    ours = reference(normalized)
    # Each judge waits on its own process: AT_ONCE of them run side by side (one per core of
    # the machine the project is sized for), in the registry's order in the answer.
    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        return list(pool.map(lambda judge: run(judge, body, ours, caps, node_modules_at), judges))


def judge_streams(
    streams: list[Stream],
    caps: Caps,
    node_modules_at: Path | None,
    max_streams: int = MAX_STREAMS,
) -> list[list[dict[str, Any]]]:
    """The verdicts on each stream, in order (an empty list past ``max_streams``)."""
    return [
        judge_stream(stream, caps, node_modules_at) if number < max_streams else []
        for number, stream in enumerate(streams)
    ]
