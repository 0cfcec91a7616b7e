"""The ``proxy`` role (``bench/bench_proxy.py``): HTTP streams read on a raw socket, each
receipt stamped. Every stream asks for the fake's ``gate:<gate>:<rate>:<count>`` model, either
from the fake itself (``direct``) or through Streamscope's recording proxy
(``/proxy/fake/...``); once every answer's head is here the role says ``ready``, the bench
opens the gate, and each stream's tokens arrive at the same moments. For each token the role
keeps ``receipt - x_sent_ms`` (both ``time.time()`` in ms on this machine), the token's
lateness, taken when the socket read that carried it returned."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from typing import Any

from kit.clients import Clock, emit

_SENT = re.compile(rb'"x_sent_ms": ([0-9.]+)')
_END = b"0\r\n\r\n"


class Stream(asyncio.Protocol):
    def __init__(self, port: int, path: str, model: str) -> None:
        self.request = _request(port, path, model)
        self.head: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.buf = bytearray()
        self.headed = False
        self.lateness: list[float] = []
        self.reads = 0
        self.refused: bytes | None = None  # the answer's start, when it was not a 200

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time() * 1000
        if not self.headed:
            self.buf += data
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.head.done():
                self.refused = (
                    None if self.buf.startswith(b"HTTP/1.1 200") else bytes(self.buf[:900])
                )
                self.head.set_result(self.refused is None)
            self.headed = True
            data = bytes(self.buf[end + 4 :])
        self.reads += 1
        self.lateness += [now - float(sent) for sent in _SENT.findall(data)]
        if data.endswith(_END) and not self.done.done():
            self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.head.done():
            self.head.set_result(False)
        if not self.done.done():
            self.done.set_result(None)


def _factory(stream: Stream) -> Callable[[], Stream]:
    """The protocol factory ``create_connection`` calls: this stream, already made."""
    return lambda: stream


def _request(port: int, path: str, model: str) -> bytes:
    body = json.dumps({"model": model, "stream": True, "messages": []}).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer sk-bench-0000\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def proxy(spec: dict[str, Any], clock: Clock) -> None:
    """``spec``: ``streams``, each ``{"label", "port", "path", "model"}``."""
    loop = asyncio.get_running_loop()
    streams: list[tuple[str, Stream]] = []
    for item in spec["streams"]:
        stream = Stream(item["port"], item["path"], item["model"])
        await loop.create_connection(_factory(stream), "127.0.0.1", item["port"])
        streams.append((item["label"], stream))
    heads = await asyncio.gather(*(s.head for _, s in streams))
    refused = [s.refused.decode(errors="replace") for _, s in streams if s.refused]
    emit("ready", ok=all(heads), streams=len(streams), refused=refused[:3])
    await asyncio.wait_for(asyncio.gather(*(s.done for _, s in streams)), spec.get("timeout", 600))
    by_label: dict[str, list[list[float]]] = {}
    for label, stream in streams:
        by_label.setdefault(label, []).append(stream.lateness)
        stream.transport.close()
    emit("result", lateness=by_label, client=clock.info())
