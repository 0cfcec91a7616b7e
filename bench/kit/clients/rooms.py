"""Presenter rooms: ``presenter`` joins a room with its key and, on ``go``, sends ``count``
actions at ``rate`` per second, noting when it sent each (wall clock, ms); ``roomview`` viewers
join the room (the capture replayed to each), report ``ready`` once all have it, and note when
each mirrored state arrives, by its ``seq``, until the last one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import orjson

from kit.clients import Clock, describe, emit, stdin_line, ws_connect
from kit.clients.live import Attach

ACTIONS = ("seek", "step", "play", "pause", "speed", "token", "tool", "theme", "zoom")
THEMES = (None, "light", "dark", "contrast")


def action(i: int) -> tuple[str, dict[str, Any]]:
    """The i-th action and its state: a presenter going through the moves a class sees."""
    name = ACTIONS[i % len(ACTIONS)]
    playing = name == "play"
    state = {
        "playing": playing,
        "t": float(10 * (i % 300)),
        "cursor": None if playing else i % 25,
        "speed": 2 if name == "speed" else 1,
        "token": {"lane": "text", "choice": 0, "token": i % 5} if name == "token" else None,
        "tool": {"stream": 0, "choice": 0, "call": i % 2} if name == "tool" else None,
        "theme": THEMES[(i // len(ACTIONS)) % len(THEMES)],
        "zoom": 1.5 if name == "zoom" else 1,
    }
    return name, state


async def _join(
    port: int, room: str, key: str | None, timeout: float
) -> tuple[Any, dict[str, Any]]:
    """A connection that has joined and received the whole capture; the ``room`` message."""
    ws = await ws_connect(port)
    message: dict[str, Any] = {"type": "join", "room": room}
    if key:
        message["key"] = key
    await ws.send(json.dumps(message))
    joined: dict[str, Any] = {}
    while True:
        found = orjson.loads(await asyncio.wait_for(ws.recv(), timeout))
        if found["type"] == "room":
            joined = found
        elif found["type"] == "error":
            raise RuntimeError(f"refused: {found['code']}: {found['message']}")
        elif found["type"] == "end":
            return ws, joined


async def presenter(spec: dict[str, Any], clock: Clock) -> None:
    ws, joined = await _join(spec["port"], spec["room"], spec["key"], 60)
    emit("ready", seq=joined["seq"], presenter=joined["presenter"])
    await stdin_line()  # go
    sent: list[float] = []
    errors: list[str] = []

    async def drain() -> None:  # its own mirrors and any refusal
        with contextlib.suppress(Exception):
            while True:
                found = orjson.loads(await ws.recv())
                if found["type"] == "error":
                    errors.append(found["code"])

    reader = asyncio.create_task(drain())
    t0 = time.monotonic()
    for i in range(spec["count"]):
        await asyncio.sleep(max(0.0, t0 + i / spec["rate"] - time.monotonic()))
        name, state = action(i)
        sent.append(time.time() * 1000)
        await ws.send(
            json.dumps({"type": "present", "key": spec["key"], "action": name, "state": state})
        )
    await asyncio.sleep(1.0)
    reader.cancel()
    with contextlib.suppress(Exception):
        await ws.close()
    emit(
        "result",
        base=joined["seq"],
        sent=[round(t, 3) for t in sent],
        errors=errors,
        client=clock.info(),
    )


async def roomview(spec: dict[str, Any], clock: Clock) -> None:
    """``n`` viewers of one room; each reports when each mirror arrived, by seq."""
    attach = Attach(spec["n"])
    last = spec["last_seq"]

    async def viewer(i: int) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": False, "arrived": {}, "order_errors": 0}
        attached = False
        try:
            ws, joined = await _join(spec["port"], spec["room"], None, spec.get("timeout", 120))
            out["presenter"] = joined["presenter"]
            attached = True
            attach.one()
            seen = joined["seq"]
            while seen < last:
                raw = await asyncio.wait_for(ws.recv(), spec.get("timeout", 120))
                now = time.time() * 1000
                message = orjson.loads(raw)
                if message["type"] != "mirror":
                    continue
                if message["seq"] <= seen:
                    out["order_errors"] += 1
                seen = message["seq"]
                out["arrived"][seen] = round(now, 3)
            out["ok"] = out["order_errors"] == 0
            with contextlib.suppress(Exception):
                await ws.close()
        except Exception as exc:
            out["error"] = describe(exc)
            if not attached:
                attach.one()
        return out

    tasks = [asyncio.create_task(viewer(i)) for i in range(spec["n"])]
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(attach.all.wait(), spec.get("attach_timeout", 120))
    emit("ready", attached=attach.count)
    results = await asyncio.gather(*tasks)
    emit("result", viewers=results, client=clock.info())
