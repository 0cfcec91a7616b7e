"""Metric budgets (``--budget ttft=2s,itl-p95=200ms,stall=1s,e2el=60s``) and whether a stream
keeps them. A budget is a limit on one metric of docs/timeline.md; a stream without times
leaves it unjudged (never failed: nothing was measured)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# budget name -> the metric it limits (docs/timeline.md, "Metrics")
METRICS = {
    "ttft": "ttft_ms",
    "ttfo": "ttfo_ms",
    "itl-p50": "itl_p50_ms",
    "itl-p95": "itl_p95_ms",
    "itl-max": "itl_max_ms",
    "stall": "itl_max_ms",  # the longest gap between events with output
    "e2el": "e2el_ms",
    "tpot": "tpot_ms",
}
_VALUE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*$")


class BudgetError(ValueError):
    """A ``--budget`` that cannot be read: says which part and why."""


@dataclass(frozen=True)
class Budget:
    name: str
    limit_ms: float

    @property
    def metric(self) -> str:
        return METRICS[self.name]


@dataclass(frozen=True)
class Kept:
    """One budget judged on one stream: ``held`` None when it could not be judged."""

    budget: Budget
    value_ms: float | None
    held: bool | None

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget.name,
            "limit_ms": self.budget.limit_ms,
            "value_ms": self.value_ms,
            "held": self.held,
        }

    def describe(self) -> str:
        name, limit = self.budget.name, _ms(self.budget.limit_ms)
        if self.held is None:
            return f"{name} <= {limit}: not judged (the capture has no times for it)"
        verdict = "held" if self.held else "BROKEN"
        return f"{name} <= {limit}: {verdict} ({_ms(self.value_ms)})"


def parse(text: str) -> list[Budget]:
    """``ttft=2s,itl-p95=200ms``: values in ms (the default) or s."""
    budgets: list[Budget] = []
    for part in (p for p in text.split(",") if p.strip()):
        name, eq, value = part.partition("=")
        name = name.strip().lower()
        if not eq:
            raise BudgetError(f"budget {part.strip()!r}: expected NAME=VALUE (ttft=2s)")
        if name not in METRICS:
            raise BudgetError(f"budget {name!r}: not one of {', '.join(METRICS)}")
        match = _VALUE.match(value)
        if match is None:
            raise BudgetError(f"budget {name}: {value.strip()!r} is not a time (200ms, 2s)")
        number = float(match.group(1))
        budgets.append(Budget(name, number * 1000 if match.group(2) == "s" else number))
    return budgets


def judge(budgets: list[Budget], metrics: dict[str, Any]) -> list[Kept]:
    """Each budget against a stream's metrics (``Metrics.to_json()``)."""
    kept = []
    for budget in budgets:
        value = metrics.get(budget.metric)
        if not isinstance(value, (int, float)):
            kept.append(Kept(budget, None, None))
        else:
            kept.append(Kept(budget, float(value), value <= budget.limit_ms))
    return kept


def _ms(value: float | None) -> str:
    if value is None:
        return "unknown"
    return f"{value / 1000:g} s" if value >= 1000 else f"{value:g} ms"
