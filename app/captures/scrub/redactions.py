"""What scrubbing reports: what it removed, or why a file cannot be scrubbed at all; and what
one scrub may spend."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

# Holds no quote or backslash, so JSON text stays JSON wherever it replaces a value.
REDACTED = "[redacted]"


class Unscrubbable(ValueError):
    """A file the scrubber cannot make safe: it is refused, never stored as it is."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"cannot be scrubbed, so it was not stored: {where}: {why}")
        self.where = where
        self.why = why


class Budget:
    """The CPU time one scrub may take (docs/security.md, "Scrubbing in linear time"). Every
    pattern is linear, so this is a backstop: past it the upload is refused, never a worker
    held. The calling thread's CPU time is counted, so a busy machine does not spend it."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = seconds
        self._deadline = None if seconds is None else time.thread_time() + seconds

    def check(self) -> None:
        if self._deadline is not None and time.thread_time() > self._deadline:
            raise Unscrubbable(
                "the capture",
                f"scrubbing it took more than its budget of {self.seconds:g} s of CPU "
                "(STREAMSCOPE_SCRUB_SECONDS)",
            )


UNLIMITED = Budget()


def known_forms(secrets: Iterable[str]) -> tuple[bytes, ...]:
    """Each secret as it is and as a JSON string holds it (``\\"``, ``\\\\``, ``\\/``,
    ``\\u00e9``), longest first. An escaped ASCII letter (``\\u0073k-``) is found by
    the sweep, which decodes such strings and looks again."""
    forms: set[bytes] = set()
    for secret in secrets:
        if not secret or secret in REDACTED:
            continue  # "[redacted]" itself would be found again
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        for form in (secret, escaped, escaped.replace("/", "\\/"), json.dumps(secret)[1:-1]):
            forms.add(form.encode("utf-8", "surrogatepass"))
    return tuple(sorted(forms, key=len, reverse=True))


class Redactions(Counter[str]):
    """What was removed, by kind, so the upload answer and the page can say so; the
    ``budget`` the scrub that counts them may spend; and the ``known`` secrets it removes
    besides what the rules find (a live run's or a proxied call's own credentials, in each
    form an upstream may write them: ``known_forms``), longest first."""

    budget: Budget = UNLIMITED
    known: tuple[bytes, ...] = ()

    def as_list(self) -> list[dict[str, Any]]:
        return [{"kind": kind, "count": count} for kind, count in sorted(self.items())]
