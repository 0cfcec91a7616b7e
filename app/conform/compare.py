"""Two conformance reports side by side (docs/conform.md, "In the page": ``/conform/<a>/<b>``,
what changed between two versions of a server), without I/O: each report is the document
``streamscope conform --json`` prints. Per case, in the first report's order and then the
second's new cases: its verdict in each, whether it got better or worse, the rule ids found
in one and not the other, and the change of TTFT and ITL p50; a case run in only one report
says which."""

from __future__ import annotations

from typing import Any

from .model import WORST

METRICS = ("ttft_ms", "itl_p50_ms")


def _cases(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    cases = document.get("cases") if isinstance(document, dict) else None
    out: dict[str, dict[str, Any]] = {}
    for entry in cases if isinstance(cases, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("case"), str):
            out.setdefault(entry["case"], entry)
    return out


def _rules(entry: dict[str, Any]) -> list[str]:
    findings = entry.get("findings")
    found = [
        f["rule"]
        for f in (findings if isinstance(findings, list) else [])
        if isinstance(f, dict) and isinstance(f.get("rule"), str)
    ]
    return list(dict.fromkeys(found))


def _metric(entry: dict[str, Any], name: str) -> float | None:
    metrics = entry.get("metrics")
    value = metrics.get(name) if isinstance(metrics, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _side(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {
        "verdict": entry.get("verdict"),
        "why": entry.get("why"),
        "rules": _rules(entry),
        "capture": entry.get("capture"),
        **{name: _metric(entry, name) for name in METRICS},
    }


def _change(a: dict[str, Any], b: dict[str, Any]) -> str:
    """``same``, ``better`` or ``worse`` (verdicts ranked pass < unsupported < warn < fail);
    ``changed`` for a verdict outside the ranking."""
    if a["verdict"] == b["verdict"]:
        return "same"
    if a["verdict"] not in WORST or b["verdict"] not in WORST:
        return "changed"
    return "worse" if WORST.index(b["verdict"]) > WORST.index(a["verdict"]) else "better"


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 3)


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The comparison of report ``a`` (before) with report ``b`` (after)."""
    first, second = _cases(a), _cases(b)
    rows = []
    for name in [*first, *(n for n in second if n not in first)]:
        one, two = _side(first.get(name)), _side(second.get(name))
        row: dict[str, Any] = {"case": name, "a": one, "b": two}
        if one is None or two is None:
            row["change"] = "only-a" if two is None else "only-b"
            row["added"], row["removed"] = [], []
            row.update({f"{m}_change": None for m in METRICS})
        else:
            row["change"] = _change(one, two)
            row["added"] = [r for r in two["rules"] if r not in one["rules"]]
            row["removed"] = [r for r in one["rules"] if r not in two["rules"]]
            row.update({f"{m}_change": _delta(one[m], two[m]) for m in METRICS})
        rows.append(row)
    counts = {kind: 0 for kind in ("same", "better", "worse", "changed", "only-a", "only-b")}
    for row in rows:
        counts[row["change"]] += 1
    return {
        "cases": rows,
        "summary": {
            **counts,
            "findings_changed": sum(1 for r in rows if r["added"] or r["removed"]),
        },
    }
