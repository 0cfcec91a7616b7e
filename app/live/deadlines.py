"""A request's deadlines (``Timeouts``): when one passed, and what it is called. A live run's
request (upstream.py) and a proxied call (app/proxy/exchange.py) keep the same ones
(docs/live.md, docs/proxy.md, "Deadlines"), each looked at by a watch thread that stops the
request whose deadline passed:

* total: from the start, for the whole run or call;
* first byte: from the request to the response's headers, then again from the headers to the
  first byte of the body;
* idle: between two reads of the body.

httpx's own read timeout is only a backstop (``httpx_timeout``): httpx gives every read the
same timeout, so it cannot keep a deadline counted from an earlier moment (the request, the
headers, the start).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from .request import Timeouts

BACKSTOP = 5.0  # seconds past the longer of the first-byte and idle deadlines


def httpx_timeout(timeouts: Timeouts) -> httpx.Timeout:
    """httpx's timeouts for a watched request: connect as set, reads only as a backstop."""
    backstop = max(timeouts.first_byte, timeouts.idle) + BACKSTOP
    return httpx.Timeout(connect=timeouts.connect, read=backstop, write=30.0, pool=timeouts.connect)


@dataclass
class Deadlines:
    """The moments a request reached, read against its ``timeouts``. ``what`` names the
    request in the messages ("run", "call")."""

    timeouts: Timeouts
    start: float
    what: str
    asked: float | None = None  # the request went out, no headers yet
    headers: float | None = None  # the response's headers arrived
    first_read: float | None = None
    last_read: float = 0.0

    def ask(self, now: float) -> None:
        """A request went out: its headers are due within the first-byte deadline."""
        self.asked, self.headers = now, None

    def wait(self) -> None:
        """No request is out (between attempts): only the total deadline runs."""
        self.asked = self.headers = None

    def answered(self, now: float) -> None:
        """The headers arrived: the body's first byte is due within the first-byte deadline."""
        self.headers = now

    def read(self, now: float) -> None:
        if self.first_read is None:
            self.first_read = now
        self.last_read = now

    def total(self, now: float) -> str | None:
        """What the total deadline says when it passed at ``now``, or None."""
        t = self.timeouts
        if now - self.start > t.total:
            return f"the {self.what} passed its total timeout ({t.total:g} s)"
        return None

    def passed(self, now: float) -> str | None:
        """What the deadline that passed at ``now`` says, or None."""
        t = self.timeouts
        over = self.total(now)
        if over is not None:
            return over
        if self.first_read is not None:
            if now - self.last_read > t.idle:
                return f"no data for {t.idle:g} s (idle timeout)"
        elif self.headers is not None:
            if now - self.headers > t.first_byte:
                return (
                    f"no data within {t.first_byte:g} s of the response headers "
                    "(first-byte timeout)"
                )
        elif self.asked is not None and now - self.asked > t.first_byte:
            return f"no response headers within {t.first_byte:g} s of the request"
        return None
