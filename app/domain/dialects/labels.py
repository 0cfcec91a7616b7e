"""What the page shows of a dialect, as data: the browser knows roles, not dialects
(docs/dialects.md, "Roles and labels"; docs/protocol.md, ``capture`` and ``events``).

A dialect's ``Labels`` say, once per stream, what one of its outputs is called, what its
metrics count, which meta fields name the model, which usage fields have the page's own short
names, and what the server's own timings mean. Its ``view`` says, per block event, what the
block is for (its **role**) and what the page shows of it, read from the dialect's own shapes
in Python, so that no file in ``static/js`` names a dialect (tests/test_js_dialect_names.py);
viewparts.py has the parts views are made of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..events import Event

# What a block is for (docs/timeline.md, "Block views").
ROLES: tuple[str, ...] = (
    "text",  # answer text
    "reasoning",  # reasoning, shown, redacted or encrypted
    "tool_call",  # a call the client runs
    "server_call",  # a call the server runs itself
    "tool_result",  # what a call found
    "citation",  # a source the answer cites
    "note",  # something the lanes do not show (a signature, redacted bytes)
    "refusal",  # the model declines
    "compaction",  # a summary of the conversation so far
)
View = dict[str, Any]
ViewOf = Callable[[Event], View | None]


@dataclass(frozen=True)
class Unit:
    """What a dialect's metrics count, in words: one, many, and what comes after the last."""

    one: str
    many: str
    trailing: str


CHUNKS = Unit("chunk with choices", "chunks with choices", "a trailing usage chunk")
OUTPUT_EVENTS = Unit("event with output", "events with output", "a trailing usage or end event")


@dataclass(frozen=True)
class UsageRow:
    """A usage row under the page's own short name: ``key`` the row's name, ``path`` where
    its value is (dotted), ``help`` the usage field whose definition it takes."""

    key: str
    label: str
    path: str
    help: str


@dataclass(frozen=True)
class Labels:
    """``output``: what one output is called (``numbered``: with its index, "Choice 0").
    ``unit``: what the metrics count. ``model``: the meta fields that name the model, the
    first present wins. ``usage_rows``: the usage fields with the page's short names, used
    when the usage has the first row's field; the other fields keep their own names.
    ``server_metrics``: what each of the server's own timings (metrics.server) means."""

    output: str = "Answer"
    numbered: bool = False
    unit: Unit = OUTPUT_EVENTS
    model: tuple[str, ...] = ("model",)
    usage_rows: tuple[UsageRow, ...] = ()
    usage_when: tuple[str, ...] = ()
    server_metrics: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "numbered": self.numbered,
            "unit": {"one": self.unit.one, "many": self.unit.many, "trailing": self.unit.trailing},
            "model": list(self.model),
            "usage_rows": [
                {"key": r.key, "label": r.label, "path": r.path, "help": r.help}
                for r in self.usage_rows
            ],
            "usage_when": list(self.usage_when),
            "server_metrics": dict(self.server_metrics),
        }


def no_view(event: Event) -> View | None:
    """A dialect without blocks: no event needs a view."""
    return None
