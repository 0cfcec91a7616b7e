"""What the rules read of one stream, each part computed once and only when a rule asks.

A rule must not walk a long stream itself: 45 rules each walking 100,000 chunks would cost
more than reading them. The parts here are cheap: the timeline folded (every run of text
deltas as one event, summary.py), the wire facts the reading noted (sightings.py), the
reading's diagnostics by code, the request's parameters when it is known, and the metrics.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import Any, TypeVar

import orjson

from ..events import Diagnostic, Event, Logprobs
from ..metrics import DEFAULT_STALL_MS, Metrics, compute
from ..requests import request_view
from ..sightings import Sightings
from ..stream import Stream
from ..summary import Folded, fold
from .request import RequestParams, request_params

E = TypeVar("E", bound=Event)


class Evidence:
    """One stream as the rules see it. ``timeline`` is the stream folded with its logprobs,
    when the caller folded it already (``inspect`` does, for the summary)."""

    def __init__(
        self,
        stream: Stream,
        *,
        stall_ms: float = DEFAULT_STALL_MS,
        timeline: Folded | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.stream = stream
        self.dialect = stream.dialect_name
        self.stall_ms = stall_ms
        self._timeline = timeline
        self._metrics = metrics
        self._of: dict[type, list[Any]] = {}

    @property
    def sightings(self) -> Sightings:
        return self.stream.sightings

    @cached_property
    def folded(self) -> Folded:
        return self._timeline if self._timeline is not None else fold(self.stream)

    @cached_property
    def _by_type(self) -> dict[type, list[Event]]:
        """The folded timeline's events by their exact type, in one pass (a stream with
        logprobs has one event of them per chunk: a pass per rule would cost more than the
        rules)."""
        by_type: dict[type, list[Event]] = defaultdict(list)
        for event in self.folded.runs:
            by_type[type(event)].append(event)
        return by_type

    def of(self, kind: type[E]) -> list[E]:
        """The events of one kind (and its subclasses), in order (text deltas folded into
        runs)."""
        found = self._of.get(kind)
        if found is None:
            lists = [v for t, v in self._by_type.items() if issubclass(t, kind)]
            if len(lists) == 1:
                found = lists[0]
            else:
                found = sorted((e for v in lists for e in v), key=lambda e: e.seq)
            self._of[kind] = found
        return found  # type: ignore[return-value]

    def has(self, kind: type[Event]) -> bool:
        return any(issubclass(t, kind) for t in self.folded.present)

    @cached_property
    def _diagnostics(self) -> dict[str, list[Diagnostic]]:
        by_code: dict[str, list[Diagnostic]] = defaultdict(list)
        for diagnostic in self.of(Diagnostic):
            by_code[diagnostic.code].append(diagnostic)
        return by_code

    def diagnostics(self, code: str) -> list[Diagnostic]:
        return self._diagnostics.get(code, [])

    @cached_property
    def first_logprobs(self) -> Logprobs | None:
        """The stream's first logprobs event (a scan that stops there: the folded timeline
        the rules read may leave logprobs out)."""
        return next((e for e in self.stream.events if type(e) is Logprobs), None)

    @cached_property
    def first_logprob_entry(self) -> dict[str, Any] | None:
        """The first token's logprob entry, as sent (None when there is none, or it is not an
        object)."""
        first = self.first_logprobs
        if first is None:
            return None
        try:
            entries = orjson.loads(b"[" + first.entries + b"]")
        except orjson.JSONDecodeError:
            return None
        return entries[0] if entries and isinstance(entries[0], dict) else None

    @cached_property
    def request(self) -> RequestParams | None:
        return request_params(request_view(self.stream))

    @property
    def metrics(self) -> Metrics:
        if self._metrics is None:
            self._metrics = compute(self.stream, self.stall_ms)
        return self._metrics
