"""A proxied call's request as it goes out (``Outgoing``), and what the proxy answers in the
upstream's place when there is no answer to relay (``Failure``: 502 or 504, or 400 for a
header that cannot be sent; docs/proxy.md). exchange.py sends the one and raises the other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from ..live.answers import describe_connect_error
from ..live.headercheck import unsendable


class Failure(Exception):
    """The call did not get an answer from its upstream: what the proxy answers instead."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True)
class Outgoing:
    method: str
    url: str  # the upstream's URL for this call (the proxy's token already out)
    headers: list[tuple[str, str]]
    body: bytes
    resolve: Callable[[], str]  # the address to connect to, checked (or PolicyRefused)


def check_ascii(headers: list[tuple[str, str]]) -> None:
    """HTTP/1.1 header values are sent as printable ASCII here: ``Failure`` (400) for one that
    is not (a NUL in ``x-api-key``), naming the header and the position, never the value."""
    for name, value in headers:
        why = unsendable(name, value)
        if why is not None:
            raise Failure(400, "bad_header", why)


def failure_of(
    exc: Exception, url: str, connect_timeout: float, stopped: tuple[str, str] | None
) -> Failure:
    """What the client is answered when the upstream gave no answer: ``stopped`` is the call's
    stop reason, if it was stopped (a deadline, or the client went away)."""
    where = urlsplit(url).netloc
    if stopped is not None:  # a deadline (504), or the client went away (it sees nothing)
        return Failure(504, "upstream_timeout", stopped[1] or "stopped")
    if isinstance(exc, httpx.ConnectTimeout):
        message = f"could not connect to {where} within {connect_timeout:g} s"
        return Failure(504, "upstream_timeout", message)
    if isinstance(exc, httpx.ConnectError):
        return Failure(502, "upstream_unreachable", describe_connect_error(exc, url))
    if isinstance(exc, httpx.TimeoutException):
        return Failure(504, "upstream_timeout", f"{where} sent no answer in time")
    # Not the exception's own words: an HTTP client's may quote a header value (a key).
    return Failure(502, "bad_gateway", f"the request to {where} failed ({type(exc).__name__})")
