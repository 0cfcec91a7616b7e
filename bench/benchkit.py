"""What the single-run benchmarks (``bench_parse``, ``bench_player``, ``bench_relay``) share: the
Markdown table with a pass mark per target, polling a page under the CSP, and the verdict.
(The load benchmarks have their own kit, ``loadkit.py``.)"""

from __future__ import annotations

import time
from typing import Any


class Table:
    """Rows of measure, value, baseline, ratio, target, pass. A missed target is listed in
    ``failed`` with the ratio (``failure="ratio"``, where the target is on the ratio) or the
    value (``failure="value"``)."""

    def __init__(self, failure: str = "ratio") -> None:
        self.rows: list[tuple[str, ...]] = []
        self.failed: list[str] = []
        self.failure = failure

    def row(
        self,
        measure: str,
        value: str,
        baseline: str = "",
        ratio: str = "",
        target: str = "",
        ok: bool | None = None,
    ) -> None:
        mark = "info" if ok is None else ("PASS" if ok else "**FAIL**")
        if ok is False:
            shown = (ratio or value) if self.failure == "ratio" else value
            self.failed.append(f"{measure}: {shown} (target {target})")
        self.rows.append((measure, value, baseline or "-", ratio or "-", target or "-", mark))

    def render(self) -> str:
        head = ("measure", "value", "baseline", "ratio", "target", "pass")
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
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


def wait_for(page, expression: str, timeout: float, interval_ms: int = 20) -> Any:
    """Poll a JS expression with page.evaluate until it is truthy (no eval under the CSP)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {expression}")
        page.wait_for_timeout(interval_ms)
