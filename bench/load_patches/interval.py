"""Each follower's thread sends at most every ``STREAMSCOPE_FOLLOW_INTERVAL`` seconds (0.04):
what arrived meanwhile goes out as one message (fewer wake-ups, sends and frames)."""

from __future__ import annotations

import os
import time
from typing import Any

from app.live.hub import messages
from app.web import session

INTERVAL = float(os.environ.get("STREAMSCOPE_FOLLOW_INTERVAL", "0.04"))
TICK = 0.25  # as FOLLOW_TICK in the app


def _follow(
    self: Any, run: Any, title: str, *, starter: bool, resume: tuple[int, int] | None = None
) -> None:
    self._send(run.capture_message(title))
    index, done = 0, False
    if resume is not None:
        catch_up, index = run.snapshot(resume[1])
        self._send(catch_up)
    while not done:
        pieces, index, done = run.pending(index, TICK)
        for text in messages(pieces):
            self._send(text)
        self._client_messages(run, starter)
        if pieces and not done:
            time.sleep(INTERVAL)
    while True:
        message = self._next(None)
        if message is not None and message["type"] == "raw_request":
            self._raw_live(run, message)


session.Session._follow = _follow
