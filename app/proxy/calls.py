"""The proxy's calls as they happen, for ``/proxy`` and ``GET /api/proxy/calls`` (docs/proxy.md).

Each call is listed from the moment it is received, newest first: method, path, model, status,
dialect, TTFT, duration, tokens and findings (how many, and how many of each severity), and
where its recording is. While a call streams, its dialect, TTFT and tokens are read from its
live timeline (the metrics' own definitions, ``app/domain/metrics.py``), on a copy taken under
the run's lock so the call's own thread never waits for a listing; its findings are the run's
own, judged at most once a second while it streams and once at its end
(app/live/findings.py). The list is kept in memory by the process that served the calls (the
most recent ``KEPT``); the recordings themselves are in the store.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..domain.callruns import Ended, answer_of
from ..domain.metrics import compute
from ..domain.stream import Stream

if TYPE_CHECKING:
    from ..live.hub import LiveRun

KEPT = 200
SHOWN_CALLS = 50  # tool calls of one answer listed
SHOWN_ARGUMENTS = 2000  # characters of a tool call's arguments listed
_numbers = itertools.count(1)


@dataclass
class Facts:
    """What a call's timeline says so far."""

    dialect: str | None = None
    ttft_ms: float | None = None
    tokens: int | None = None
    events: int = -1  # how many events they were read from
    findings: dict[str, int] | None = None  # by severity, as the run last judged them
    ended: Ended | None = None  # its answer, stop reason and input tokens, once it ended


@dataclass(eq=False)
class Call:
    upstream: str
    method: str
    path: str
    model: str | None
    started: float = field(default_factory=time.time)
    clock: float = field(default_factory=time.monotonic)
    number: int = field(default_factory=lambda: next(_numbers))
    status: int | None = None
    state: str = "connecting"  # connecting, streaming, then how the call ended
    error: str | None = None
    recording: str | None = None  # the capture id
    delete_token: str | None = None
    recording_end: str | None = None  # how the recording ended (too_large: it stopped early)
    run: LiveRun | None = None  # while it streams: its timeline, read for the list
    ended: float | None = None  # monotonic
    facts: Facts = field(default_factory=Facts)
    run_id: str | None = None  # the run it is grouped in (docs/runs.md)
    on_ended: Callable[[Ended | None], None] | None = None  # told its answer once it ended

    @property
    def id(self) -> str:
        return self.recording or f"call-{self.number}"

    def duration_ms(self, now: float) -> float:
        return round(((self.ended or now) - self.clock) * 1000, 1)

    def read_facts(self, last: bool = False) -> Facts:
        run = self.run
        if run is None:
            return self.facts
        with run.cond:
            stream = run.stream
            found = run.findings.counts
            if len(stream.events) == self.facts.events:
                if found != self.facts.findings:
                    self.facts = replace(self.facts, findings=found)
                return self.facts
            copy = Stream(
                index=0,
                source=stream.source,
                raw=list(stream.raw),
                events=list(stream.events),
                timed=True,
                dialect=stream.dialect,
            )
        metrics = compute(copy)
        ended = answer_of(copy) if last else None
        self.facts = Facts(
            copy.dialect_name,
            metrics.ttft_ms,
            metrics.output_tokens,
            len(copy.events),
            found,
            ended,
        )
        return self.facts

    def settle(self) -> None:
        """The call is over: what its timeline says is read once more and kept (with its
        answer, for its run), and the timeline let go (the list keeps calls, not their
        timelines: the store has them)."""
        if self.run is not None:
            self.facts = replace(self.facts, events=-1)  # read once more, with the answer
        facts = self.read_facts(last=True)
        self.run = None
        if self.on_ended is not None:
            self.on_ended(facts.ended)

    def to_json(self, now: float) -> dict[str, Any]:
        facts = self.read_facts()
        return {
            "id": self.id,
            "url": f"/c/{self.recording}" if self.recording else None,
            "upstream": self.upstream,
            "method": self.method,
            "path": self.path,
            "model": self.model,
            "status": self.status,
            "state": self.state,
            "error": self.error,
            "dialect": facts.dialect,
            "ttft_ms": facts.ttft_ms,
            "duration_ms": self.duration_ms(now),
            "tokens": facts.tokens,
            "findings": sum(facts.findings.values()) if facts.findings is not None else None,
            "finding_counts": facts.findings,
            "started": round(self.started, 3),
            "recording": self.recording,
            "recording_end": self.recording_end,
            "delete_token": self.delete_token,
            "run": self.run_id,
            **_ended(facts.ended),
        }


def _ended(ended: Ended | None) -> dict[str, Any]:
    """A call's answer as its listing has it (a run's waterfall reads it)."""
    if ended is None:
        return {"tool_calls": None, "stop": None, "input_tokens": None}
    return {
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": (c.arguments or "")[:SHOWN_ARGUMENTS]}
            for c in ended.answer.tool_calls[:SHOWN_CALLS]
        ],
        "stop": ended.stop,
        "input_tokens": ended.input_tokens,
    }


class Calls:
    def __init__(self, kept: int = KEPT) -> None:
        self._calls: deque[Call] = deque(maxlen=kept)
        self._lock = threading.Lock()
        self.on_add: Callable[[Call], None] = lambda call: None  # shared.py publishes it

    def add(self, call: Call) -> None:
        with self._lock:
            self._calls.appendleft(call)
        self.on_add(call)

    def kept(self) -> list[Call]:
        with self._lock:
            return list(self._calls)

    def listing(self) -> list[dict[str, Any]]:
        """Every call kept, newest first."""
        with self._lock:
            calls = list(self._calls)
        now = time.monotonic()
        return [call.to_json(now) for call in calls]

    def active(self) -> int:
        with self._lock:
            return sum(1 for call in self._calls if call.ended is None)
