"""Live runs: ``starter`` starts one and reads it to the end; ``follow`` viewers open its share
link and check it (seq continuity, tokens ``tN`` in order, lateness from ``x_sent_ms``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from kit.clients import Clock, describe, emit, ws_connect


async def starter(spec: dict[str, Any], clock: Clock) -> None:
    """Start a live run (``base_url``, ``model``); report its capture id, then its end."""
    ws = await ws_connect(spec["port"])
    body = {"model": spec["model"], "messages": [{"role": "user", "content": "hi"}]}
    await ws.send(
        json.dumps({"type": "start", "base_url": spec["base_url"], "headers": {}, "body": body})
    )
    end: dict[str, Any] | None = None
    events = 0
    try:
        while True:
            message = orjson.loads(await asyncio.wait_for(ws.recv(), spec.get("timeout", 300)))
            kind = message["type"]
            if kind == "status" and message.get("state") == "started":
                emit("started", capture=message["capture"])
            elif kind == "events":
                events += len(message["events"])
            elif kind in ("end", "error"):
                end = message
                break
    except Exception as exc:
        end = {"type": "failed", "error": describe(exc)}
    with contextlib.suppress(Exception):
        await ws.close()
    emit("result", end=end, events=events, client=clock.info())


class Attach:
    """Counts viewers that have attached (their ``capture`` message came, or they failed,
    so that nobody waits for them); set when all ``n`` have."""

    def __init__(self, n: int) -> None:
        self.n, self.count = n, 0
        self.all = asyncio.Event()

    def one(self) -> None:
        self.count += 1
        if self.count == self.n:
            self.all.set()


Viewer = Callable[[int, Attach], Awaitable[dict[str, Any]]]


async def run_viewers(spec: dict[str, Any], clock: Clock, viewer: Viewer) -> None:
    """``n`` viewers; ``ready`` once all have attached, ``result`` once all have ended."""
    attach = Attach(spec["n"])
    tasks = [asyncio.ensure_future(viewer(i, attach)) for i in range(spec["n"])]
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(attach.all.wait(), spec.get("attach_timeout", 120))
    emit("ready", attached=attach.count)
    results = await asyncio.gather(*tasks)
    emit("result", viewers=results, client=clock.info())


def finish(out: dict[str, Any], tokens: int, count: int | None, stamps: list[float]) -> None:
    """A viewer's verdict and event rate, from what it counted."""
    out["tokens"] = tokens
    out["ok"] = (
        out.get("end") == "done"
        and out["seq_errors"] == 0
        and out["token_errors"] == 0
        and (count is None or tokens == count)
    )
    if len(stamps) == 2 and stamps[1] > stamps[0]:
        out["rate"] = (len(out["lateness"]) - 1) / ((stamps[1] - stamps[0]) / 1000)


async def follow(spec: dict[str, Any], clock: Clock) -> None:
    """Viewers on a live run's share link (the ``websockets`` client)."""
    port, capture, count = spec["port"], spec["capture"], spec.get("count")

    async def viewer(i: int, attach: Attach) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": False, "seq_errors": 0, "token_errors": 0}
        out.update(events=0, messages=0, lateness=[])
        reads: list[float] = []
        stamps: list[float] = []  # first and last receipt of a chunk
        texts: list[str] = []
        t0 = time.monotonic()
        attached = False
        try:
            ws = await ws_connect(port)
            await ws.send(json.dumps({"type": "open", "source": {"capture": capture}}))
            seq = 0
            while True:
                raw = await asyncio.wait_for(ws.recv(), spec.get("timeout", 120))
                now = time.time() * 1000
                message = orjson.loads(raw)
                out["messages"] += 1
                kind = message["type"]
                if kind == "capture" and not attached:
                    attached = True
                    out["attach_s"] = round(time.monotonic() - t0, 3)
                    attach.one()
                elif kind == "events" and message["events"]:
                    # list comprehensions, not a Python loop per event: the client must
                    # keep up with 200 viewers x 200 messages/s on a 2-core machine
                    evs = message["events"]
                    out["events"] += len(evs)
                    seqs = [e["seq"] for e in evs]
                    if seqs != list(range(seq, seq + len(evs))):
                        out["seq_errors"] += 1
                    seq = seqs[-1] + 1
                    extras = [e for e in evs if e["kind"] == "extra" and "x_sent_ms" in e["fields"]]
                    if extras:
                        out["lateness"].extend([now - e["fields"]["x_sent_ms"] for e in extras])
                        if i == 0:  # the server's read time t minus the write time
                            reads.extend([e["t"] - e["fields"]["x_sent_ms"] for e in extras])
                        if stamps:
                            stamps[1] = now
                        else:
                            stamps[:] = [now, now]
                    texts.extend([e["text"] for e in evs if e["kind"] == "text"])
                elif kind == "status":  # a viewer of another process's run: fallback, live
                    out.setdefault("states", []).append(message.get("state"))
                elif kind in ("end", "error"):
                    out["end"] = message.get("reason") or message.get("code")
                    break
            out["token_errors"] = sum(1 for j, text in enumerate(texts) if text != f"t{j} ")
            finish(out, len(texts), count, stamps)
            with contextlib.suppress(Exception):
                await ws.close()
        except Exception as exc:
            out["error"] = describe(exc)
            if not attached:
                attach.one()
        out["lateness"] = [round(x, 2) for x in out["lateness"]]
        if i == 0:
            out["reads"] = [round(x, 2) for x in reads]
        return out

    await run_viewers(spec, clock, viewer)
