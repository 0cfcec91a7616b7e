"""Which headers the recording proxy forwards, and which it records (docs/proxy.md).

Request headers go to the upstream as the client sent them, but for:

* hop-by-hop headers (RFC 9110 7.6.1: ``Connection`` and the headers it names, ``Keep-Alive``,
  ``TE``, ``Trailer``, ``Transfer-Encoding``, ``Upgrade``, ``Proxy-*``) and the ones that
  describe this connection (``Host``, ``Content-Length``, ``Expect``), which httpx writes for
  the upstream's;
* the proxy's own token (``X-Streamscope-Proxy-Token``) and cookies, which belong to
  Streamscope's origin, not to the upstream;
* the headers that name another URL, host, scheme or client (``X-Original-URL``,
  ``X-Forwarded-Host``, ``X-Forwarded-Proto``, ``X-Forwarded-For``, ``Forwarded``, ...): a
  gateway in front of the upstream could route by them, and they are the client's word only;
* ``Accept-Encoding``, sent as ``identity``: the recording is read and scrubbed as it arrives,
  which a compressed body would prevent (an upstream that compresses anyway is decoded for the
  recording, ``recording.py``; the client still gets its bytes).

The client's credentials (``Authorization``, ``x-api-key``, ``api-key``, ``x-goog-api-key``,
and any header the scrubbing rules call secret) go to that upstream only: they are collected
here so that the recording redacts them wherever they appear, and no header is ever logged.

Response headers go back to the client as the upstream sent them, but for hop-by-hop headers and
``Date`` and ``Server``, which the serving HTTP server writes itself; the recording keeps them
without secret ones (``Set-Cookie``, an echoed key) and with every value swept.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote_plus

from ..captures.scrub.rules import is_secret_header, is_secret_param

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
TOKEN_HEADER = "X-Streamscope-Proxy-Token"
RUN_HEADER = "X-Streamscope-Run"  # names the call's run (docs/runs.md); never forwarded
# Headers that would tell an upstream (or a gateway in front of it) another URL, host or scheme
# than the one it was asked for: a client's word is not the proxy's (issue 26).
ROUTING = frozenset(
    {
        "x-original-url",
        "x-rewrite-url",
        "x-forwarded-host",
        "x-forwarded-proto",
        "x-forwarded-for",
        "x-forwarded-prefix",
        "x-forwarded-port",
        "x-forwarded-server",
        "x-real-ip",
        "forwarded",
    }
)
NOT_FORWARDED = frozenset(
    {
        "host",
        "content-length",
        "expect",
        "cookie",
        "accept-encoding",
        TOKEN_HEADER.lower(),
        RUN_HEADER.lower(),
    }
    | ROUTING
)
# The answer comes from Streamscope's origin: a cookie the upstream sets would be kept for
# Streamscope (and never reach the upstream again: ``cookie`` is not forwarded), and
# Clear-Site-Data would clear Streamscope's own storage (the delete tokens "My captures" keeps).
NOT_RETURNED = frozenset({"date", "server", "set-cookie", "set-cookie2", "clear-site-data"})
CREDENTIALS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
Headers = list[tuple[str, str]]


def _named_by_connection(headers: Iterable[tuple[str, str]]) -> set[str]:
    named: set[str] = set()
    for name, value in headers:
        if name.lower() == "connection":
            named |= {part.strip().lower() for part in value.split(",") if part.strip()}
    return named


def _end_to_end(headers: Iterable[tuple[str, str]], dropped: frozenset[str]) -> Headers:
    pairs = list(headers)
    named = _named_by_connection(pairs)
    return [
        (name, value)
        for name, value in pairs
        if (low := name.lower()) not in HOP_BY_HOP and low not in dropped and low not in named
    ]


def to_upstream(headers: Iterable[tuple[str, str]]) -> Headers:
    """The client's headers as the upstream gets them."""
    return [*_end_to_end(headers, NOT_FORWARDED), ("Accept-Encoding", "identity")]


def to_client(headers: Iterable[tuple[str, str]]) -> Headers:
    """The upstream's response headers as the client gets them."""
    return _end_to_end(headers, NOT_RETURNED)


def credentials(headers: Iterable[tuple[str, str]]) -> list[str]:
    """Every credential the client's headers carry, whole and without its scheme
    (``Bearer``, ``Basic``), for the recording to redact wherever it appears."""
    found: list[str] = []
    for name, value in headers:
        low = name.lower()
        if low in CREDENTIALS or is_secret_header(name):
            found.append(value.strip())
            scheme, _, rest = value.strip().partition(" ")
            if rest and scheme.isalpha():
                found.append(rest.strip())
    return [value for value in found if len(value) >= 8]


def query_credentials(query: str) -> list[str]:
    """The values of the query's secret parameters (``key=``, ``api_key=``...: the scrubbing
    rules' names), for the recording to redact wherever the upstream echoes them."""
    found = []
    for pair in query.split("&") if query else []:
        name, _, value = pair.partition("=")
        if is_secret_param(unquote_plus(name)):
            found.append(unquote_plus(value))
    return [value for value in found if len(value) >= 8]


def recorded(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The response headers a recording keeps: no hop-by-hop and no secret header (the values
    are swept by the recorder). Repeated headers are joined with ``, ``."""
    kept: dict[str, str] = {}
    for name, value in _end_to_end(headers, frozenset()):
        low = name.lower()
        if is_secret_header(low):
            continue
        kept[low] = f"{kept[low]}, {value}" if low in kept else value
    return kept
