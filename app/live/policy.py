"""Where a live run may connect (docs/live.md, "Secrets and network policy"; docs/security.md).

When the server listens only on loopback, any upstream is allowed, localhost included: it is a
local tool. When it listens on another interface (or runs with ``--public``), an upstream that
resolves to a loopback, private, link-local, CGNAT, multicast, reserved or metadata address is
refused before any connection, unless it is in the allow list. IPv4 addresses hidden in IPv6
(IPv4-mapped, 6to4, NAT64, Teredo) are unwrapped and checked too. The name is resolved once;
the connection then goes to the checked address, so a DNS answer that changes between lookups
cannot slip past.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]

CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


class PolicyRefused(Exception):
    """The upstream may not be reached from this server; the message says why."""


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def embedded_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64 or address in NAT64_LOCAL:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def why_refused(address: Address) -> str | None:
    """A reason to refuse this address on a public server, or None."""
    inner = embedded_ipv4(address)
    if inner is not None:
        reason = why_refused(inner)
        return f"{reason} (inside the IPv6 address {address})" if reason else None
    checks = (
        (address in METADATA, "a cloud metadata address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (
            isinstance(address, ipaddress.IPv4Address) and address in CGNAT,
            "a carrier-grade NAT (100.64.0.0/10) address",
        ),
        (address.is_multicast, "a multicast address"),
        (address.is_unspecified, "the unspecified address"),
        (address.is_private, "a private address"),
        (address.is_reserved, "a reserved address"),
        (
            isinstance(address, ipaddress.IPv6Address) and address.is_site_local,
            "a site-local address",
        ),
    )
    return next((reason for hit, reason in checks if hit), None)


@dataclass(frozen=True)
class Policy:
    """``public``: apply the address checks. ``allow``: hosts or networks always allowed."""

    public: bool
    allow: tuple[str, ...] = ()
    resolver: Resolver = system_resolver

    def _allowed(self, host: str, address: Address) -> bool:
        for entry in self.allow:
            if entry.lower() == host.lower():
                return True
            try:
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
        return False

    def resolve(self, host: str, port: int) -> str:
        """Resolve once and return the address to connect to, or raise ``PolicyRefused``."""
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
            addresses = [str(literal)]
        except ValueError:
            try:
                addresses = self.resolver(host, port)
            except OSError as exc:
                raise PolicyRefused(f"cannot resolve {host}: {exc.strerror or exc}") from None
        if not addresses:
            raise PolicyRefused(f"{host} has no address")
        if not self.public:
            return addresses[0]
        for text in addresses:
            address = ipaddress.ip_address(text.split("%")[0])
            reason = why_refused(address)
            if reason and not self._allowed(host, address):
                raise PolicyRefused(
                    f"refused: {host} resolves to {address}, {reason}; this server is public, "
                    "so it does not connect there (add it to STREAMSCOPE_UPSTREAM_ALLOW to allow it)"
                )
        return addresses[0]


def listens_publicly(host: str) -> bool:
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host not in ("localhost",)
