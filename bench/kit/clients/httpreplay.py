"""Replays over HTTP: ``replayhttp`` (viewers fetching a capture's timeline document at once,
on ``go``, as the player page does: docs/protocol.md, "The timeline document"). Each viewer
opens its own connection, sends ``GET`` with a browser's ``Accept-Encoding`` and reads the whole
answer. The page can show the first events only once it has the whole document, so
``first_events_ms`` is the time to its last byte (``headers_ms``: to the response head). Then,
once every viewer has its answer (so that one viewer's parsing does not delay another's
receipt on this shared event loop, where each browser would have its own CPU), each undoes the
coding, parses the document and checks every event (``seq`` continuous per stream, counts from
the ``capture`` message); ``parse_ms`` is that work for one viewer."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import time
from typing import Any

import brotli
import orjson

from kit.clients import Clock, describe, emit, stdin_line

ACCEPT = "gzip, deflate, br, zstd"  # what Chromium sends


def _head(head: bytes) -> tuple[int, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return status, headers


def _parse_and_check(out: dict[str, Any]) -> None:
    answer = out.pop("_answer", None)
    if answer is None:
        return
    t0 = time.monotonic()
    try:
        check(orjson.loads(_decoded(*answer)), out)
    except Exception as exc:
        out["error"] = describe(exc)
    out["parse_ms"] = round((time.monotonic() - t0) * 1000, 2)


def _decoded(headers: dict[str, str], body: bytes) -> bytes:
    coding = headers.get("content-encoding")
    if coding == "br":
        return brotli.decompress(body)
    if coding == "gzip":
        return gzip.decompress(body)
    return body


def check(doc: dict[str, Any], out: dict[str, Any]) -> None:
    """Every event of every stream, ``seq`` continuous, ending ``complete``."""
    expected: dict[int, int] = {}
    seqs: dict[int, int] = {}
    for message in doc["messages"]:
        if message["type"] == "capture":
            expected = {s["index"]: s["events"] for s in message["streams"]}
        elif message["type"] == "events":
            stream = message["stream"]
            got = [e["seq"] for e in message["events"]]
            seq = seqs.get(stream, 0)
            if got != list(range(seq, seq + len(got))):
                out["seq_errors"] += 1
            seqs[stream] = seq + len(got)
            out["events"] += len(got)
        elif message["type"] == "end":
            out["end"] = message["reason"]
    out["expected_events"] = sum(expected.values())
    out["ok"] = (
        out.get("end") == "complete"
        and out["seq_errors"] == 0
        and out["events"] == out["expected_events"]
    )


async def _fetch_one(port: int, path: str, timeout: float) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": False, "seq_errors": 0, "events": 0, "bytes": 0}
    t0 = time.monotonic()
    writer = None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        out["connect_ms"] = round((time.monotonic() - t0) * 1000, 2)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n"
            f"Accept-Encoding: {ACCEPT}\r\nConnection: close\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        out["headers_ms"] = round((time.monotonic() - t0) * 1000, 2)
        status, headers = _head(head)
        body = await asyncio.wait_for(
            reader.readexactly(int(headers.get("content-length", "0"))), timeout
        )
        out["bytes"] = len(body)
        out["coding"] = headers.get("content-encoding")
        if status != 200:
            out["error"] = f"HTTP {status}: {body[:200].decode(errors='replace')}"
            return out
        out["first_events_ms"] = out["end_ms"] = round((time.monotonic() - t0) * 1000, 2)
        out["_answer"] = (headers, body)
    except Exception as exc:
        out["error"] = describe(exc)
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    return out


async def replayhttp(spec: dict[str, Any], clock: Clock) -> None:
    emit("ready")
    await stdin_line()  # go
    timeout = spec.get("timeout", 120)
    results = await asyncio.gather(
        *(_fetch_one(spec["port"], spec["path"], timeout) for _ in range(spec["n"]))
    )
    for out in results:
        _parse_and_check(out)
    emit("result", viewers=results, client=clock.info())
