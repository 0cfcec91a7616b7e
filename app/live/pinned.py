"""Connecting to the address the network policy checked, whatever the URL's host name says."""

from __future__ import annotations

import functools
import socket
import ssl
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import httpcore
import httpx


class PinnedBackend(httpcore.NetworkBackend):
    """Connects to the checked address for a host name, and hands each socket to the run."""

    def __init__(self, pinned: dict[str, str], on_socket: Callable[[socket.socket], None]) -> None:
        self._pinned = pinned
        self._on_socket = on_socket
        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        address = self._pinned.get(host)
        if address is None:
            raise httpcore.ConnectError(f"no checked address for {host}")
        stream = self._backend.connect_tcp(address, port, timeout, local_address, socket_options)
        self._on_socket(stream.get_extra_info("socket"))
        return stream

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.ConnectError("unix sockets are not upstreams")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def pinned_client(
    url: str,
    address: str,
    timeout: httpx.Timeout | float,
    on_socket: Callable[[socket.socket], None],
) -> httpx.Client:
    """An httpx client that connects to ``address`` for the URL's host, follows no redirects
    and ignores proxy variables. httpx has no public hook for the network backend, so the
    transport's pool is rebuilt with ``PinnedBackend``."""
    host = urlsplit(url).hostname or ""
    context = shared_ssl_context()
    transport = httpx.HTTPTransport(verify=context, retries=0)
    transport._pool = httpcore.ConnectionPool(
        ssl_context=context,
        max_connections=1,
        network_backend=PinnedBackend({host: address}, on_socket),
    )
    return httpx.Client(
        transport=transport,
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
        verify=context,
    )


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """One TLS context for every run: building one loads the CA bundle (tens of ms each)."""
    return httpx.create_ssl_context()
