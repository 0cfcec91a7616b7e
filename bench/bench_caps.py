"""Resource caps: what the server's memory does as one request's input grows past each cap.

For each capped resource (a ``Series``) and each input size, a fresh ``streamscope serve
--production`` (gunicorn, one worker) on loopback takes a small warm-up input, then the
worker's peak RSS is reset (``/proc/<pid>/clear_refs``), the input is sent, and the growth of
the peak (``VmHWM``) over the RSS just before is read. Below a cap the cost follows the input; past it the input is
refused or skipped and the growth must stay flat. Target per series: the largest growth past
the cap is at most 1.25 times the smallest past the cap, plus 8 MiB (allocator noise).

    python -m bench caps            # about 8 minutes
    python -m bench caps --quick    # smaller inputs, a smoke run

Series (docs/security.md, "What one client can cost"):

* upload size (``STREAMSCOPE_MAX_UPLOAD_MB``, 50): a chunked raw body (no Content-Length, so
  the server must count), a realistic capture with logprobs (``gen_capture.py``), padded with
  ``data: {}`` events past the cap;
* decompressed size (``STREAMSCOPE_MAX_DECOMPRESSED_MB``, by default the upload cap): a raw
  gzip body that decompresses to the size shown (the same chunk line repeated, so the body
  itself stays small);
* longest line (``STREAMSCOPE_MAX_LINE_MB``, 8): 45 MB of JSON Lines (gzip) whose lines are
  as long as shown, each an array of empty objects (about 30 times its size while parsed, the
  worst shape we know), the rest one plain string line, then one good chunk;
* live run size (``STREAMSCOPE_MAX_LIVE_MB``, set to 16 here to keep the run short): a live run
  against the fake upstream's ``flood:<MB>`` model, which sends that many MB of chunks as fast
  as the socket takes them; the run ends ``too_large`` past the cap (which counts the recording,
  its JSON records a little larger than the bytes, and the bytes its timeline is read from);
* model list answer (1 MiB, fixed): ``POST /api/models`` against the fake upstream's
  ``/big/<MB>/`` route, a models answer of that size.
* concurrent exports and downloads (built once, sent from disk: ``app/services/results.py``): a
  20 MB capture with logprobs is uploaded before the peak is reset, then 1 to 12 GETs of its
  ``player.html`` (or its JSON Lines download) are sent at once; past one, the growth must
  stay flat (before issue 26, each GET built its own: six exports of a 12 MB capture grew the
  peak 3.1 times one). Past the slow-work capacity (8 here), the rest get 503.

Then the scrubber's CPU time per MB on adversarial input (the attacks of issue 26 and the
costliest pieces tests/test_scrub_linear.py finds, repeated over one SSE data line) at 40 KB,
160 KB, 1 MB and 5 MB: flat when scrubbing is linear (the target: the most per MB at most twice
the least). The floor beside it is one search of the same bytes for a literal they do not hold
(a memchr pass), for scale only.

Adding a row: write a ``send(server, size_mb) -> status`` that sends one input of that size
and returns the HTTP status (or a short word), and add a ``Series`` to ``series()``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import gen_capture
from kit.report import header
from kit.table import Table

from tests.fake_upstream import FakeUpstream
from tests.live_server import LiveServer
from tests.rawhttp import exchange, head, peak_kib, reset_peak, serving_pid

MB = 1024 * 1024
ONE_ADDRESS = {"STREAMSCOPE_WORK_PER_CLIENT": "100"}  # every client here is 127.0.0.1
GOOD = b'{"choices":[{"index":0,"delta":{"content":"ok"}}]}\n'
PIECE = MB  # bytes handed to the socket at a time


@dataclass
class Series:
    cap: str  # what is capped
    setting: str  # the setting and its value
    cap_mb: float
    inputs_mb: list[float]
    send: Callable[[LiveServer, float], str]
    env: dict[str, str] = field(default_factory=dict)
    what: str = "input"  # what the input size measures
    prepare: Callable[[LiveServer], None] | None = None  # before the peak is reset
    unit: str = "MB"


@dataclass
class Point:
    size_mb: float
    status: str
    grown_mib: float


# ------------------------------------------------------------------------- inputs
def post(server: LiveServer, body: bytes | Iterator[bytes], headers: dict[str, str]) -> str:
    if isinstance(body, bytes):
        headers = {**headers, "Content-Length": str(len(body))}
    request = head("POST", "/api/captures", f"127.0.0.1:{server.port}", headers)
    return str(exchange(server.port, request, body, timeout=300).status)


def upload_size(server: LiveServer, size_mb: float) -> str:
    """A chunked raw body of ``size_mb`` MB: a real capture, padded past the cap."""
    size = int(size_mb * MB)
    capture = _capture(min(size, 45 * MB))
    filler = b"data: {}\n\n" * (PIECE // 10)

    def pieces() -> Iterator[bytes]:
        for i in range(0, len(capture), PIECE):
            yield frame(capture[i : i + PIECE])
        sent = len(capture)
        while sent < size:
            piece = filler[: size - sent]
            yield frame(piece)
            sent += len(piece)
        yield frame(b"")  # the last chunk

    headers = {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"}
    return post(server, pieces(), headers)


def frame(piece: bytes) -> bytes:
    """One chunk of Transfer-Encoding: chunked (the empty one ends the body)."""
    return f"{len(piece):x}\r\n".encode() + piece + b"\r\n"


_CAPTURES: dict[int, bytes] = {}


def _capture(size: int) -> bytes:
    if size not in _CAPTURES:
        _CAPTURES[size] = gen_capture.capture_bytes(max(1, size // 750))[:size]
    return _CAPTURES[size]


def gzip_of(pieces: Iterator[bytes]) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [packer.compress(piece) for piece in pieces]
    out.append(packer.flush())
    return b"".join(out)


def decompressed_size(server: LiveServer, size_mb: float) -> str:
    """A raw gzip body that decompresses to ``size_mb`` MB of chunk lines."""
    line = b"data: " + GOOD
    block = line * (PIECE // len(line))
    count = int(size_mb * MB) // len(block)
    body = gzip_of(block for _ in range(count))
    return post(server, body, {"Content-Type": "application/gzip"})


def longest_line(server: LiveServer, size_mb: float, total_mb: float = 45) -> str:
    """``total_mb`` MB of JSON Lines (gzip): lines of ``size_mb`` MB of empty objects, then
    one line of a plain string making up the rest (cheap to parse), then a good chunk."""
    line_size, total = int(size_mb * MB), int(total_mb * MB)
    line = b'{"x":[' + b"{}," * ((line_size - 9) // 3) + b"{}]}\n"
    count = total // len(line)
    rest = total - count * len(line)
    pad = [b'{"pad":"' + b"a" * (rest - 11) + b'"}\n'] if rest > 11 else []
    body = gzip_of(iter([GOOD, *(line for _ in range(count)), *pad, GOOD]))
    return post(server, body, {"Content-Type": "application/gzip"})


def live_run(server: LiveServer, size_mb: float, fake: FakeUpstream) -> str:
    """A live run of ``size_mb`` MB of chunks, read by its page to the end: its end reason."""
    from websockets.sync.client import connect
    from websockets.typing import Origin, Subprotocol

    from app.protocol import SUBPROTOCOL

    url = f"ws://127.0.0.1:{server.port}/ws"
    origin = Origin(f"http://127.0.0.1:{server.port}")
    start = {
        "type": "start",
        "base_url": fake.url + "/v1",
        "headers": {},
        "body": {"model": f"flood:{size_mb:g}", "messages": [{"role": "user", "content": "x"}]},
    }
    with connect(url, subprotocols=[Subprotocol(SUBPROTOCOL)], origin=origin, max_size=None) as ws:
        ws.send(json.dumps(start))
        while True:
            message = json.loads(ws.recv(timeout=300))
            if message["type"] in ("end", "error"):
                return str(message.get("reason") or message.get("code"))


def models_answer(server: LiveServer, size_mb: float, fake: FakeUpstream) -> str:
    body = json.dumps({"base_url": f"{fake.url}/big/{size_mb:g}/v1"}).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    request = head("POST", "/api/models", f"127.0.0.1:{server.port}", headers)
    return str(exchange(server.port, request, body, timeout=120).status)


PREPARED: dict[int, str] = {}  # server port -> the capture its heavy GETs ask for
EXPORTED_MB = 20


def stored_capture(server: LiveServer) -> None:
    """A 20 MB capture with logprobs, uploaded (and so parsed and cached) before the peak is
    reset: what the GETs then cost is their own."""
    body = _capture(EXPORTED_MB * MB)
    headers = {"Content-Type": "text/event-stream", "Content-Length": str(len(body))}
    request = head("POST", "/api/captures?format=sse", f"127.0.0.1:{server.port}", headers)
    answer = exchange(server.port, request, body, timeout=300)
    assert answer.status == 201, answer
    PREPARED[server.port] = json.loads(answer.body)["id"]


def concurrent_gets(path: str) -> Callable[[LiveServer, float], str]:
    """``count`` GETs of ``path`` of the prepared capture at once: their statuses."""

    def send(server: LiveServer, count: float) -> str:
        url = path.format(id=PREPARED[server.port])
        statuses: list[int] = []

        def one() -> None:
            request = head("GET", url, f"127.0.0.1:{server.port}")
            statuses.append(exchange(server.port, request, timeout=300).status)

        threads = [threading.Thread(target=one) for _ in range(int(count))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        return "/".join(sorted({str(s) for s in statuses}))

    return send


def heavy_gets(cap: str, what: str, path: str, quick: bool) -> Series:
    """GETs at once of one result of the prepared capture: built once, sent from disk."""
    return Series(
        cap,
        "built once, sent from disk (results.py)",
        1,
        [1, 2, 6] if quick else [1, 2, 4, 6, 12],
        concurrent_gets(path),
        env=ONE_ADDRESS,
        what=f"{what} GETs at once of a {EXPORTED_MB} MB capture",
        prepare=stored_capture,
        unit="",
    )


def series(quick: bool, fake: FakeUpstream) -> list[Series]:
    upload_cap = 50
    lines_mb = 20 if quick else 45
    return [
        Series(
            "upload size",
            f"STREAMSCOPE_MAX_UPLOAD_MB={upload_cap}",
            upload_cap,
            [10, 25, 45, 100, 200, 400] if not quick else [10, 45, 100, 200],
            upload_size,
            what="chunked raw body",
        ),
        Series(
            "decompressed size",
            f"STREAMSCOPE_MAX_DECOMPRESSED_MB (= the upload cap, {upload_cap})",
            upload_cap,
            [10, 25, 45, 100, 400, 1600] if not quick else [10, 45, 100, 400],
            decompressed_size,
            what="gzip body, decompressed",
        ),
        Series(
            "longest line",
            "STREAMSCOPE_MAX_LINE_MB=8",
            8,
            [1, 7, 16] if quick else [1, 2, 4, 7, 16, 45],
            lambda server, size: longest_line(server, size, lines_mb),
            what=f"longest line of {lines_mb} MB of JSON Lines",
        ),
        Series(
            "live run size",
            "STREAMSCOPE_MAX_LIVE_MB=16",
            16,
            [2, 4, 32, 64] if quick else [1, 2, 4, 32, 64, 128],
            lambda server, size: live_run(server, size, fake),
            env={"STREAMSCOPE_MAX_LIVE_MB": "16"},
            what="live run of flooded chunks",
        ),
        heavy_gets("concurrent exports", "player.html", "/api/captures/{id}/player.html", quick),
        heavy_gets(
            "concurrent downloads",
            "JSON Lines download",
            "/api/captures/{id}/download/jsonl",
            quick,
        ),
        Series(
            "model list answer",
            "1 MiB read at most (fixed)",
            1,
            [0.5, 0.9, 8, 64] if quick else [0.25, 0.5, 0.9, 8, 64, 256],
            lambda server, size: models_answer(server, size, fake),
            what="models answer",
        ),
    ]


# ---------------------------------------------------------------------- measuring
def measure(one: Series, data_dir: Path) -> list[Point]:
    """One fresh server per input, so that no input inherits another's heap."""
    env = {"STREAMSCOPE_MAX_CONCURRENT_IMPORTS": "1", **one.env}
    args = ["--production", "--workers", "1", "--threads", "16"]
    points = []
    for i, size in enumerate(one.inputs_mb):
        with LiveServer(data_dir / str(i), args, env) as server:
            pid = serving_pid(server)
            warm_up(server)
            if one.prepare is not None:
                one.prepare(server)
            before = reset_peak(pid)
            status = one.send(server, size)
            time.sleep(0.2)
            points.append(Point(size, status, (peak_kib(pid) - before) / 1024))
        print(
            f"  {one.cap}: {size:g}{_unit(one)} -> {status}, peak +{points[-1].grown_mib:.0f} MiB"
        )
    return points


def warm_up(server: LiveServer) -> None:
    """A small upload: the import path's modules and caches loaded, nothing large held."""
    status = post(server, b"data: " + GOOD + b"\n", {"Content-Type": "text/event-stream"})
    assert status == "201", status


def flat_past(points: list[Point], cap_mb: float) -> tuple[float, float]:
    past = [p.grown_mib for p in points if p.size_mb > cap_mb]
    return min(past), max(past)


def add_rows(table: Table, one: Series, points: list[Point]) -> None:
    for point in points:
        side = "under" if point.size_mb <= one.cap_mb else "past"
        table.row(
            f"{one.cap}: {point.size_mb:g}{_unit(one)} {one.what} ({side} the cap)",
            f"+{point.grown_mib:.0f} MiB ({point.status})",
            f"cap {one.cap_mb:g}{_unit(one)}: {one.setting}",
        )
    low, high = flat_past(points, one.cap_mb)
    table.row(
        f"{one.cap}: flat past the cap",
        f"+{low:.0f} to +{high:.0f} MiB",
        "",
        f"{high / max(low, 1):.2f}x",
        "max <= 1.25 x min + 8 MiB",
        high <= 1.25 * low + 8,
    )


# ---------------------------------------------------------------------- scrubbing time
SCRUB_SIZES = (40 * 1024, 160 * 1024, 1024 * 1024, 5 * 1024 * 1024)
# The attacks of issue 26 and the costliest pieces tests/test_scrub_linear.py finds, each
# repeated over one SSE data line.
SCRUB_PUMPS = (b"eyJ-", b'\\"', b"\nx-api-key:", b"&key=", b'\\"api_key\\":')


def per_mb(call: Callable[[bytes], object], data: bytes) -> float:
    """CPU ms per MB of ``call(data)``, the best of three (the calling thread's CPU time)."""
    best = min(_cpu(call, data) for _ in range(3))
    return best * 1000 / (len(data) / MB)


def _cpu(call: Callable[[bytes], object], data: bytes) -> float:
    start = time.thread_time()
    call(data)
    return time.thread_time() - start


def scrub_rows(table: Table, quick: bool) -> None:
    """The scrubber's CPU time per MB on adversarial input, from 40 KB to 5 MB: flat when
    scrubbing is linear (before issue 26, ``eyJ-`` cost 1.2 s at 40 KB and 38 s at 300 KB).
    The floor: one search of the same bytes for a literal they do not hold (a memchr pass),
    for scale."""
    from app.captures.scrubbing import scrub

    never = re.compile(rb"\x01never")
    sizes = SCRUB_SIZES[:3] if quick else SCRUB_SIZES
    for pump in SCRUB_PUMPS:
        costs = []
        for size in sizes:
            data = b"data: " + pump * (size // len(pump)) + b"\n\n"
            costs.append(per_mb(lambda d: scrub(d, "sse"), data))
        floor = per_mb(never.search, b"data: " + pump * (sizes[-1] // len(pump)))
        table.row(
            f"scrub {pump.decode()!r} repeated: {' / '.join(_size(n) for n in sizes)}",
            " / ".join(f"{c:.0f}" for c in costs) + " ms per MB",
            f"floor {floor:.2f} ms per MB",
            f"{max(costs) / min(costs):.2f}x",
            "max <= 2 x min per MB",
            max(costs) <= 2 * min(costs),
        )
        print(f"  scrub {pump!r}: {costs}")


def _size(size: int) -> str:
    return f"{size // 1024} KB" if size < 1024 * 1024 else f"{size // (1024 * 1024)} MB"


def _unit(one: Series) -> str:
    return f" {one.unit}" if one.unit else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (a smoke run)")
    args = parser.parse_args(argv)
    header(packages=["gunicorn"], argv=argv)
    table = Table()
    fake = FakeUpstream().start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-caps-") as tmp:
            for i, one in enumerate(series(args.quick, fake)):
                add_rows(table, one, measure(one, Path(tmp) / f"s{i}"))
        scrub_rows(table, args.quick)
    finally:
        fake.stop()
    print()
    print(table.render())
    return table.verdict()


if __name__ == "__main__":
    sys.exit(main())
