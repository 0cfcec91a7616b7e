"""The benchmarks' Markdown table, their one percentile, and how numbers are written.

Every bench prints one ``Table`` (an optional ``### title`` over columns measure, value,
baseline, ratio, target, pass) and exits with ``Table.verdict()``: 1 when a target was
missed. A row without a verdict (``ok=None``) is information: its target reads
"(information)" (or what the caller wrote there) and its pass column "-".

``pct`` is the one percentile definition of every bench: linear interpolation between the
two closest ranks (numpy's default, ``statistics.quantiles(method="inclusive")``), so
``pct(v, 50)`` is ``statistics.median(v)``, and anyone checking a bench's JSON results with
numpy gets the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

HEAD = ("measure", "value", "baseline", "ratio", "target", "pass")


def pct(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (``q`` in 0..100), interpolated between the closest ranks;
    nan for no values."""
    if not values:
        return float("nan")
    data = sorted(values)
    k = (len(data) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def spread(values: Sequence[float]) -> dict[str, float]:
    """Count, p50, p95, p99, max and mean (nan for no values)."""
    nan = float("nan")
    return {
        "n": len(values),
        "p50": pct(values, 50),
        "p95": pct(values, 95),
        "p99": pct(values, 99),
        "max": max(values, default=nan),
        "mean": sum(values) / len(values) if values else nan,
    }


def fmt_ms(ms: float, digits: int = 1) -> str:
    """Milliseconds below a second, seconds (2 decimals) from there; "n/a" for nan."""
    if ms != ms:
        return "n/a"
    return f"{ms:.{digits}f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def fmt_s(seconds: float) -> str:
    """Seconds, as ``fmt_ms`` writes them (whole milliseconds below a second)."""
    return fmt_ms(seconds * 1000, 0)


def fmt_mb(nbytes: float) -> str:
    return f"{nbytes / 1048576:.1f} MiB"


def ratio(a: float, b: float) -> str:
    """``a / b`` as "1.23x"; "-" when it has no meaning (b <= 0, or either is nan)."""
    if a != a or b != b or b <= 0:
        return "-"
    return f"{a / b:.2f}x"


class Table:
    """Rows of measure, value, baseline, ratio, target, pass. A missed target (``ok=False``)
    is also kept in ``failed`` as "measure: value (ratio) (target ...)"."""

    def __init__(self, title: str = "") -> None:
        self.title = title
        self.rows: list[tuple[str, ...]] = []
        self.failed: list[str] = []

    def row(
        self,
        measure: str,
        value: str,
        baseline: str = "",
        ratio: str = "",
        target: str = "",
        ok: bool | None = None,
    ) -> None:
        if ok is None:
            mark, target = "-", target or "(information)"
        else:
            mark = "PASS" if ok else "**FAIL**"
        if ok is False:
            shown = f"{value} ({ratio})" if ratio else value
            self.failed.append(f"{measure.strip()}: {shown} (target {target})")
        self.rows.append((measure, value, baseline or "-", ratio or "-", target or "-", mark))

    def render(self) -> str:
        lines = [f"### {self.title}", ""] if self.title else []
        lines += ["| " + " | ".join(HEAD) + " |", "|" + "|".join("---" for _ in HEAD) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in self.rows]
        return "\n".join(lines)

    def verdict(self) -> int:
        """Print the missed targets (or that all were met); the exit status."""
        if self.failed:
            print("\nTARGETS MISSED:")
            for line in self.failed:
                print(f"- {line}")
            return 1
        print("\nall targets met")
        return 0


def lateness_rows(
    table: Table, many: dict[str, float], base: dict[str, float], what: str, target_p95_ms: float
) -> None:
    """How late ``many`` viewers got each message against one viewer (``base``, a ``spread``):
    p50 (saying what is measured), p95 against its target, p99 and max."""
    table.row(
        f"lateness p50 ({what})",
        fmt_ms(many["p50"]),
        fmt_ms(base["p50"]),
        ratio(many["p50"], base["p50"]),
    )
    table.row(
        "lateness p95",
        fmt_ms(many["p95"]),
        f"1 viewer {fmt_ms(base['p95'])}",
        ratio(many["p95"], base["p95"]),
        f"< {target_p95_ms:g} ms",
        many["p95"] < target_p95_ms,
    )
    for key in ("p99", "max"):
        table.row(
            f"lateness {key}",
            fmt_ms(many[key]),
            fmt_ms(base[key]),
            ratio(many[key], base[key]),
        )
