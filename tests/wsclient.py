"""A websocket client for tests (the ``websockets`` library's sync client), with the small
interface the tests use: ``send``, ``receive(timeout)`` returning None on timeout, ``close``."""

from __future__ import annotations

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as _connect

from app.protocol import SUBPROTOCOL


class Client:
    def __init__(
        self,
        url: str,
        origin: str | None = None,
        subprotocols: list[str] | None = None,
        compression: str | None = None,
    ) -> None:
        self.ws = _connect(
            url,
            origin=origin,
            subprotocols=subprotocols if subprotocols is not None else [SUBPROTOCOL],
            compression=compression,  # "deflate": permessage-deflate, as browsers offer
            max_size=None,
            proxy=None,
            open_timeout=10,
            legacy=True,
        )
        self.subprotocol = self.ws.subprotocol

    def send(self, text: str) -> None:
        self.ws.send(text)

    def receive(self, timeout: float | None = None) -> str | None:
        try:
            message = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        return message if isinstance(message, str) else message.decode()

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code

    def close(self) -> None:
        self.ws.close()


def connect(port: int, origin: str | None = None, compression: str | None = None) -> Client:
    return Client(
        f"ws://127.0.0.1:{port}/ws",
        origin=origin or f"http://127.0.0.1:{port}",
        compression=compression,
    )


__all__ = ["Client", "ConnectionClosed", "connect"]
