"""What the recording proxy's tests share: a client transport that keeps each read of every
answer as the client got it, the calls list, a call's recording, and the canary checks."""

from __future__ import annotations

import json
import statistics
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from app.captures import Capture
from app.captures.timed import read_records

from .live_server import LiveServer

KEY = "sk-proxy-canary-5f1e9c2b7a4d6e8f0a1b"  # key-shaped: the sweep would catch it too
PLAIN_KEY = "proxy-canary-plain-not-key-shaped-8d3b"  # only the credential rule catches it
TOKEN = "proxy-token-canary-2c7e1a9f"


def root(fake) -> str:
    return f"http://127.0.0.1:{fake.port}"


def proxy_server(data_dir: Path, fake, *args: str, env: dict | None = None) -> LiveServer:
    return LiveServer(data_dir, ["--proxy", f"local={root(fake)}", *args], env=env)


def reads_transport(http: Any = httpx) -> Any:
    """An httpx transport (of ``http``: httpx, or the anthropic SDK's httpx2) keeping every
    answer's body as its reads, in ``answers``: the pieces the client's connection gave, before
    any decoding, in order."""

    class Kept(http.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, stream: Any, pieces: list[bytes]) -> None:
            self.stream, self.pieces = stream, pieces

        def __iter__(self) -> Iterator[bytes]:
            for piece in self.stream:
                self.pieces.append(piece)
                yield piece

        def close(self) -> None:
            self.stream.close()

    class Reads(http.BaseTransport):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self.inner = http.HTTPTransport()
            self.answers: list[list[bytes]] = []

        def handle_request(self, request: Any) -> Any:
            response = self.inner.handle_request(request)
            pieces: list[bytes] = []
            self.answers.append(pieces)
            return http.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=Kept(response.stream, pieces),
                extensions=response.extensions,
            )

        def close(self) -> None:
            self.inner.close()

    return Reads()


def get_json(server, path: str, headers: dict | None = None) -> dict:
    request = urllib.request.Request(server.url + path, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def calls(server, headers: dict | None = None) -> list[dict]:
    return get_json(server, "/api/proxy/calls", headers)["calls"]


def finished_call(server, headers: dict | None = None, timeout: float = 10) -> dict:
    """The newest call, once it has ended and its recording is all in the store."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        newest = calls(server, headers)[0]
        ended = newest["state"] not in ("connecting", "streaming")
        if ended and (newest["recording_end"] is not None or newest["recording"] is None):
            return newest
        time.sleep(0.05)
    raise AssertionError("the newest call did not end")


def recording(server, capture_id: str) -> tuple[bytes, Capture]:
    with urllib.request.urlopen(f"{server.url}/api/captures/{capture_id}/raw", timeout=10) as a:
        raw = a.read()
    capture = Capture(format="timed")
    read_records(raw, capture)
    return raw, capture


def recorded_reads(raw: bytes) -> list[tuple[float, bytes]]:
    return read_records(raw, Capture(format="timed")).reads


def writes(fake_request: dict) -> list[bytes]:
    return [data for _, data in fake_request["writes"]]


def same_times(recorded: list[float], written: list[float]) -> float:
    """How far the recorded reads' times (ms from the call's start) are from the upstream's
    writes (monotonic seconds), once shifted by the one constant between their origins: the
    median distance, in ms. Scheduling noise moves a few reads by a few ms, and cannot move the
    median."""
    assert len(recorded) == len(written)
    offsets = [r - w * 1000 for r, w in zip(recorded, written, strict=True)]
    shift = statistics.median(offsets)
    return statistics.median(abs(offset - shift) for offset in offsets)


def nowhere(server, *secrets: str) -> None:
    """No secret in any file of the data dir (the SQLite database and its WAL, the log)."""
    for secret in secrets:
        found = [
            p.name
            for p in server.data_dir.rglob("*")
            if p.is_file() and secret.encode() in p.read_bytes()
        ]
        assert found == [], (secret, found)
        assert secret not in server.log()
