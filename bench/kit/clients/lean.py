"""The lean viewer (``follow`` with ``lean``): a minimal websocket client that costs a
fraction of the ``websockets`` client per message, to tell the server's delay from the
client's on a small machine. Frames are parsed in bulk per socket read, events checked with
regular expressions on the raw JSON (``seq`` continuity, tokens ``tN`` in order,
``x_sent_ms`` and the server's ``t``), one receipt time per read."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from typing import Any

import orjson

from kit.clients import Clock, client_frame, describe, upgrade_request
from kit.clients.live import Attach, finish, run_viewers

_SEQ = re.compile(rb'"seq":(\d+)')
_EXTRA = re.compile(
    rb'"t":([-0-9.eE+]+),"scope":"chunk","choice":null,"fields":\{"x_sent_ms":([-0-9.eE+]+)\}'
)
_TEXT = re.compile(rb'"text":"t(\d+) "')


def frames(buf: bytearray) -> tuple[list[tuple[int, bytes]], int]:
    """The whole frames at the start of ``buf`` as (opcode, payload), and how many bytes
    they took."""
    out, pos = [], 0
    while len(buf) - pos >= 2:
        n, head = buf[pos + 1] & 0x7F, 2
        if n >= 126:
            head = 4 if n == 126 else 10
            if len(buf) - pos < head:
                break
            n = int.from_bytes(buf[pos + 2 : pos + head], "big")
        if len(buf) - pos < head + n:
            break
        out.append((buf[pos] & 0x0F, bytes(buf[pos + head : pos + head + n])))
        pos += head + n
    return out, pos


class LeanViewer(asyncio.Protocol):
    """One viewer of a live run's share link."""

    def __init__(self, port: int, capture: str, attach: Attach, record_reads: bool) -> None:
        self.port, self.capture, self.attach = port, capture, attach
        self.record_reads = record_reads
        self.buf = bytearray()
        self.upgraded = False
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.out: dict[str, Any] = {"ok": False, "seq_errors": 0, "token_errors": 0}
        self.out.update(events=0, messages=0, lateness=[])
        self.reads: list[float] = []
        self.stamps: list[float] = []  # first and last receipt of a chunk
        self.seq = 0
        self.token = 0
        self.attached = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(upgrade_request(self.port))

    def data_received(self, data: bytes) -> None:
        now = time.time() * 1000
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buf.startswith(b"HTTP/1.1 101"):
                self._finish(error=bytes(self.buf[:80]).decode(errors="replace"))
                return
            del self.buf[: end + 4]
            self.upgraded = True
            opening = {"type": "open", "source": {"capture": self.capture}}
            self.transport.write(client_frame(1, json.dumps(opening).encode()))
        whole, used = frames(self.buf)
        del self.buf[:used]
        for opcode, payload in whole:
            if opcode == 9:
                self.transport.write(client_frame(10, payload))
            elif opcode == 8:
                self._finish()
                return
            elif opcode == 1:
                self._message(payload, now)

    def _message(self, payload: bytes, now: float) -> None:
        out = self.out
        out["messages"] += 1
        if payload.startswith(b'{"type":"events"'):
            seqs = [int(x) for x in _SEQ.findall(payload)]
            if seqs:
                out["events"] += len(seqs)
                if seqs != list(range(self.seq, self.seq + len(seqs))):
                    out["seq_errors"] += 1
                self.seq = seqs[-1] + 1
            tokens = [int(x) for x in _TEXT.findall(payload)]
            if tokens:
                if tokens != list(range(self.token, self.token + len(tokens))):
                    out["token_errors"] += 1
                self.token = tokens[-1] + 1
            extras = _EXTRA.findall(payload)
            if extras:
                out["lateness"].extend([now - float(x) for _, x in extras])
                if self.record_reads:
                    self.reads.extend([float(t) - float(x) for t, x in extras])
                self.stamps = [self.stamps[0] if self.stamps else now, now]
            return
        message = orjson.loads(payload)
        kind = message.get("type")
        if kind == "capture" and not self.attached:
            self.attached = True
            self.attach.one()
        elif kind in ("end", "error"):
            out["end"] = message.get("reason") or message.get("code")
            self._finish()

    def _finish(self, error: str | None = None) -> None:
        if error:
            self.out["error"] = error
        if not self.done.done():
            self.done.set_result(None)
        with contextlib.suppress(Exception):
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.out.setdefault("error", f"connection lost: {exc}")
            self.done.set_result(None)


async def lean_follow(spec: dict[str, Any], clock: Clock) -> None:
    port, capture, count = spec["port"], spec["capture"], spec.get("count")
    loop = asyncio.get_running_loop()

    async def viewer(i: int, attach: Attach) -> dict[str, Any]:
        proto = LeanViewer(port, capture, attach, i == 0)
        try:
            await loop.create_connection(lambda: proto, "127.0.0.1", port)
            await asyncio.wait_for(proto.done, spec.get("timeout", 300))
        except Exception as exc:
            proto.out["error"] = describe(exc)
            if not proto.attached:
                attach.one()
        out = proto.out
        finish(out, proto.token, count, proto.stamps)
        out["lateness"] = [round(x, 2) for x in out["lateness"]]
        if i == 0:
            out["reads"] = [round(x, 2) for x in proto.reads]
        return out

    await run_viewers(spec, clock, viewer)
