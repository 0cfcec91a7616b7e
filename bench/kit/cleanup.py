"""Stopping what a bench started, whatever way it ends (return, exception, SIGTERM)."""

from __future__ import annotations

import atexit
import contextlib
import signal
from types import FrameType
from typing import Generic, Protocol, TypeVar


class Stoppable(Protocol):
    def stop(self) -> None: ...


_started: list[Stoppable] = []


def track(thing: Stoppable) -> None:
    _started.append(thing)


def untrack(thing: Stoppable) -> None:
    with contextlib.suppress(ValueError):
        _started.remove(thing)


S = TypeVar("S", bound=Stoppable)


class Tracked(Generic[S]):
    """A server a bench starts from the tests' helpers (PostgreSQL, Redis), stopped with
    everything else if the bench ends early, and no longer tracked once stopped."""

    def __init__(self, server: S) -> None:
        self.server = server
        track(self)

    def stop(self) -> None:
        self.server.stop()
        untrack(self)


def stop_everything() -> None:
    """Stop what is still running, the last started first."""
    for thing in list(reversed(_started)):
        with contextlib.suppress(Exception):
            thing.stop()


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    stop_everything()
    raise SystemExit(128 + signum)


def install_cleanup() -> None:
    atexit.register(stop_everything)
    signal.signal(signal.SIGTERM, _on_signal)
