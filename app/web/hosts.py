"""Which ``Host`` headers this server answers (docs/security.md, "Host header").

A page on ``http://evil.example:5000`` whose name is then made to resolve to 127.0.0.1 (DNS
rebinding) talks to a loopback Streamscope as its own origin: same-origin requests, a matching
``Origin`` on the websocket. What gives it away is the ``Host`` header, which carries the
attacker's name. So every request's ``Host`` must be one the server serves, checked before
anything else runs (before the websocket upgrade, before any handler):

* bound to a loopback address: ``localhost``, ``127.0.0.1`` and ``[::1]`` (and the bound
  address itself), with the server's port;
* bound to one other address: that address, with the port;
* bound to every interface (``0.0.0.0``, ``::``): the loopback names, and any IP address with
  the port: an IP literal names the machine itself, which no DNS answer can rebind;
* and always the names in ``STREAMSCOPE_ALLOWED_HOSTS``: ``name`` (any port) or ``name:port``;
  ``*`` accepts any host (for a proxy in front that checks it).

A ``Host`` without a port means port 80, so it matches only a server on port 80 (or a listed
name without a port). Names are compared without regard to case; anything else is refused. A
request with no ``Host`` at all (HTTP/1.0 tools) is answered: browsers always send one.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from flask import Flask, request

from ..digits import whole_number
from .context import services_of
from .errors import BadRequest

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
WILDCARDS = frozenset({"", "0.0.0.0", "::", "[::]"})
DEFAULT_PORT = 80
_NAME = re.compile(r"[a-z0-9._-]+|\[[0-9a-f:.]+\]")


@dataclass(frozen=True)
class HostRule:
    port: int
    names: frozenset[str]  # accepted with the server's port
    listed: frozenset[str]  # from the setting: "name" (any port) or "name:port"
    any_ip: bool = False
    anything: bool = False

    def accepts(self, host: str) -> bool:
        if self.anything:
            return True
        split = split_host(host)
        if split is None:
            return False
        name, port = split
        if name in self.listed or f"{name}:{port}" in self.listed:
            return True
        if port != self.port:
            return False
        return name in self.names or (self.any_ip and _is_ip(name))


def split_host(host: str) -> tuple[str, int] | None:
    """``(name, port)`` of a Host header value, the name lower-cased (IPv6 in brackets);
    None when it is not a well-formed host."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return None
        name, rest = host[: end + 1], host[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else ""
    else:
        name, _, port_text = host.partition(":")
        if ":" in port_text:
            return None
    port = whole_number(port_text, 5) if port_text else DEFAULT_PORT
    if not _NAME.fullmatch(name) or port is None:
        return None
    return name, port


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def _bracketed(address: str) -> str:
    address = address.lower()
    return f"[{address}]" if ":" in address and not address.startswith("[") else address


def _is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def host_rule(bound: str, port: int, allowed: str) -> HostRule:
    """The hosts a server bound to ``bound``:``port`` answers, with the setting's list."""
    listed = frozenset(entry.strip().lower() for entry in allowed.split(",") if entry.strip())
    bound = bound.strip().lower()
    if bound in WILDCARDS:
        return HostRule(port, LOOPBACK_NAMES, listed, any_ip=True, anything="*" in listed)
    names = {_bracketed(bound)}
    if _is_loopback(bound):
        names |= LOOPBACK_NAMES
    return HostRule(port, frozenset(names), listed, anything="*" in listed)


def install(app: Flask) -> None:
    settings = services_of(app).settings
    rule = host_rule(settings.host, settings.port, settings.allowed_hosts)

    @app.before_request
    def _check_host() -> None:
        host = request.headers.get("Host")
        if host is not None and not rule.accepts(host):
            raise BadRequest(
                f"this server does not answer for the host {host[:100]!r}; an operator can "
                "add it to STREAMSCOPE_ALLOWED_HOSTS",
                code="bad_host",
            )
