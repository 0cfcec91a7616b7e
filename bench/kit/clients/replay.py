"""Replays: ``replay`` (viewers opening a capture at once, on ``go``: time to the first
``events`` and to ``end``, every event checked), ``replayloop`` (viewers replaying a capture
again and again for a while: events per second) and ``churn`` (connect, open a demo, read to
``end``, close, N times)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from typing import Any

import orjson

from kit.clients import Clock, describe, emit, stdin_line, ws_connect
from kit.table import pct

_EVENTS_HEAD = re.compile(r'\{"type":"events","stream":(\d+),')
_SEQ_TEXT = re.compile(r'"seq":(\d+)')


async def _replay_one(port: int, source: dict[str, Any], timeout: float) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": False, "seq_errors": 0, "events": 0, "messages": 0, "bytes": 0}
    t0 = time.monotonic()
    try:
        ws = await ws_connect(port)
        out["connect_ms"] = round((time.monotonic() - t0) * 1000, 2)
        await ws.send(json.dumps({"type": "open", "source": source}))
        expected: dict[int, int] = {}
        seqs: dict[int, int] = {}
        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout)
            out["messages"] += 1
            out["bytes"] += len(raw)
            head = _EVENTS_HEAD.match(raw)
            if head:  # an events batch: seq checked on the text, not parsed whole
                out.setdefault("first_events_ms", round((time.monotonic() - t0) * 1000, 2))
                stream = int(head.group(1))
                seq = seqs.get(stream, 0)
                got = [int(x) for x in _SEQ_TEXT.findall(raw)]
                if got != list(range(seq, seq + len(got))):
                    out["seq_errors"] += 1
                seqs[stream] = seq + len(got)
                out["events"] += len(got)
                continue
            message = orjson.loads(raw)
            if message["type"] == "capture":
                expected = {s["index"]: s["events"] for s in message["streams"]}
            elif message["type"] in ("end", "error"):
                out["end_ms"] = round((time.monotonic() - t0) * 1000, 2)
                out["end"] = message.get("reason") or message.get("code")
                break
        out["expected_events"] = sum(expected.values())
        out["ok"] = (
            out.get("end") == "complete"
            and out["seq_errors"] == 0
            and out["events"] == out["expected_events"]
        )
        with contextlib.suppress(Exception):
            await ws.close()
    except Exception as exc:
        out["error"] = describe(exc)
    return out


async def replay(spec: dict[str, Any], clock: Clock) -> None:
    emit("ready")
    await stdin_line()  # go
    timeout = spec.get("timeout", 120)
    results = await asyncio.gather(
        *(_replay_one(spec["port"], spec["source"], timeout) for _ in range(spec["n"]))
    )
    emit("result", viewers=results, client=clock.info())


async def _loop_one(port: int, source: dict[str, Any], deadline: float) -> dict[str, Any]:
    out: dict[str, Any] = {"events": 0, "replays": 0, "errors": []}
    while time.monotonic() < deadline:
        try:
            ws = await ws_connect(port)
            await ws.send(json.dumps({"type": "open", "source": source}))
            while (left := deadline - time.monotonic()) > 0:
                try:
                    raw = await asyncio.wait_for(ws.recv(), left)
                except TimeoutError:
                    break
                if raw.startswith('{"type":"events"'):  # count without parsing
                    out["events"] += raw.count('"seq":')
                    continue
                message = orjson.loads(raw)
                if message["type"] in ("end", "error"):
                    if message["type"] == "end":
                        out["replays"] += 1
                    else:
                        out["errors"].append(message.get("code"))
                    break
            with contextlib.suppress(Exception):
                await ws.close()
        except Exception as exc:
            out["errors"].append(describe(exc))
            await asyncio.sleep(0.1)
    out["errors"] = out["errors"][:5]
    return out


async def replayloop(spec: dict[str, Any], clock: Clock) -> None:
    emit("ready")
    await stdin_line()  # go
    t_go = time.monotonic()
    deadline = t_go + spec["duration"]
    results = await asyncio.gather(
        *(_loop_one(spec["port"], spec["source"], deadline) for _ in range(spec["n"]))
    )
    emit("result", viewers=results, seconds=time.monotonic() - t_go, client=clock.info())


async def churn(spec: dict[str, Any], clock: Clock) -> None:
    emit("ready")
    await stdin_line()  # go
    todo = iter(range(spec["cycles"]))
    durations: list[float] = []
    failures: dict[str, int] = {}
    t_go = time.monotonic()

    async def cycles() -> None:
        for _ in todo:
            t0 = time.monotonic()
            try:
                ws = await ws_connect(spec["port"])
                await ws.send(json.dumps({"type": "open", "source": {"demo": spec["demo"]}}))
                while True:
                    message = orjson.loads(await asyncio.wait_for(ws.recv(), 30))
                    if message["type"] == "end":
                        break
                    if message["type"] == "error":
                        raise RuntimeError(f"error {message.get('code')}")
                await ws.close()
                durations.append((time.monotonic() - t0) * 1000)
            except Exception as exc:
                key = describe(exc)[:120]
                failures[key] = failures.get(key, 0) + 1

    await asyncio.gather(*(cycles() for _ in range(spec["concurrency"])))
    emit(
        "result",
        ok=len(durations),
        failures=failures,
        seconds=time.monotonic() - t_go,
        cycle_p50_ms=pct(durations, 50),
        cycle_p95_ms=pct(durations, 95),
        client=clock.info(),
    )
