"""A real OpenAI-compatible server on a free loopback port, for live-mode tests and benches.

``POST /v1/chat/completions`` picks its behaviour from the request's ``model``:

* ``replay:<capture>``: a capture from ``tests/captures`` (SSE, one event every ``gap`` ms,
  ``gap`` from the ``X-Gap-Ms`` header, 10 by default) or from ``app/demos`` (a timed capture:
  its reads, with their original times);
* ``rate:<per second>:<count>``: ``count`` content chunks at that rate, each carrying the time it
  was written (``time.time()`` in ms) in ``x_sent_ms``, for relay-delay measurements;
* ``slow:<count>``: ``count`` chunks, 100 ms apart (something to stop midway);
* ``conform``: a clean server that does what the body asks (``n``, ``max_tokens``, ``stop``,
  logprobs, usage, tools, ``response_format``, reasoning, a 400 for an invalid body), for
  ``streamscope conform``'s chat battery (``tests/fake_conform.py``); ``conform:refuse=<fields>``
  answers a body with any of those fields with a 400 (an unsupported parameter);
* faults: ``stall`` (headers, then nothing), ``drip`` (one byte every 2 s), ``close:<n>`` (close
  the connection after n body bytes), ``429`` (with ``Retry-After: 1``, then a normal stream on
  the next attempt), ``429always``, ``500`` (a JSON error), ``html`` (an HTML error page),
  ``json`` (a whole non-streaming completion), ``redirect`` (302 to another loopback port),
  ``echo-key`` (a 401 whose message repeats the key, as some servers do), ``echo-split`` (a
  stream whose text repeats the key and a key-shaped string, each cut over two writes),
  ``echo-escaped`` (the key and the request body in the forms JSON strings carry them:
  ``\\u00XX`` for its first letter, ``\\/`` for its slashes, a string in a string),
  ``flood:<MB>`` (that many megabytes of chunks, as fast as the socket takes them),
  ``html:<status>`` (an HTML page with that status and its title), ``reset:<n>`` (n body
bytes, then a TCP reset), ``hold`` (headers, then nothing until the client goes away, which is
noted as a close at once), ``mute`` (not even the headers, until the client goes away). Any
other method (``PUT``, ``PATCH``, ``DELETE``, ``OPTIONS``, ``HEAD``) is answered with what
came: the method, the path and the body's size.

The other dialects (``tests/fake_dialects.py``) have their own routes, whose behaviour the model
picks the same way (``replay:<capture in tests/captures/dialects>`` and the faults above that
apply): ``POST /v1/messages`` (Anthropic), ``/v1/responses``, ``/v1/completions`` (legacy
completions), ``/v1beta/models/{model}:streamGenerateContent`` (Gemini: SSE with ``alt=sse``,
the JSON array without), ``/api/chat`` and ``/api/generate`` (Ollama, NDJSON). Gemini's
``GET /v1beta/models`` and Ollama's ``GET /api/tags`` list models in their own shapes.

``GET /v1/models`` lists a few models; under ``/drip/`` one byte a second, under ``/big/`` a
64 MB answer (``/big/<MB>/``: that many), under ``/html404/`` an HTML 404 page that repeats the
key, under ``/missing/`` a JSON 404, and ``.../script.js`` a script (``application/javascript``). Every request is logged (path, headers, body, and each body
write with its monotonic time: ``writes``) and every connection's end is noted, so tests can
check what the upstream saw and sent.
"""

from __future__ import annotations

import io
import json
import select
import socket
import struct
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .fake_conform import ConformRoutes
from .fake_dialects import FOREIGN_KEY, DialectRoutes, wire_for

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "tests" / "captures"
DEMOS = ROOT / "app" / "demos"


def chunk(content: str | None = None, finish: str | None = None, **extra: Any) -> bytes:
    delta = {} if content is None else {"content": content}
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class Handler(ConformRoutes, DialectRoutes, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeUpstream

    def log_message(self, *args: Any) -> None:
        pass

    # ------------------------------------------------------------------ plumbing
    def _start(
        self,
        status: int = 200,
        content_type: str = "text/event-stream",
        headers: dict | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def _write(self, data: bytes) -> None:
        self._sent(data)  # noted first: a client may have read it (and a test looked) before
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _sent(self, data: bytes) -> None:
        noted = getattr(self, "noted", None)
        if noted is not None:
            noted["writes"].append((time.monotonic(), data))

    def _finish(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _whole(
        self, status: int, content_type: str, body: bytes, headers: dict | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self._sent(body)
        self.wfile.write(body)
        self.wfile.flush()

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server is stopping; False when it is."""
        return not self.server.stopping.wait(seconds)

    # ------------------------------------------------------------------ routes
    def do_GET(self) -> None:
        self.noted = self.server.note(self, None)
        path = urlsplit(self.path).path  # a base URL's query comes after the path
        special = next((k for k in ("drip", "big", "html404", "missing") if f"/{k}/" in path), None)
        if special is not None and path.rstrip("/").endswith("/models"):
            try:
                getattr(self, f"_models_{special}")()
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                self.server.closed(f"GET {special}")
                self.close_connection = True
            else:
                self.server.finished(f"GET {special}")
            return
        if path.endswith("/script.js"):  # what a hostile upstream could answer (issue 26)
            self._whole(200, "application/javascript", b"window.proxiedScriptRan = true;")
            return
        if path.endswith(("/v1beta/models", "/api/tags")):
            names = ("models/fake-small", "fake-large") if "v1beta" in path else ("fake-small",)
            listed = {"models": [{"name": name} for name in names]}
            self._whole(200, "application/json", json.dumps(listed).encode())
        elif path.rstrip("/").endswith("/models"):
            models = {
                "object": "list",
                "data": [
                    {"id": m, "object": "model"}
                    for m in ("fake-small", "fake-large", "replay:openai-gpt4o-content-plain.sse")
                ],
            }
            self._whole(200, "application/json", json.dumps(models).encode())
        else:
            self._whole(404, "application/json", b'{"error": {"message": "not found"}}')

    def _echo(self) -> None:
        """Any other method: noted, and answered with what came (method, path, body size)."""
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        self.noted = self.server.note(self, None)
        answer = {"method": self.command, "path": self.path, "body_bytes": len(body)}
        data = json.dumps(answer).encode()
        if self.command == "HEAD":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return
        self._whole(200, "application/json", data, {"X-Echo": self.command})

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _echo

    def _models_drip(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "200")
        self.end_headers()
        for byte in b'{"object": "list", "data": [' + b" " * 172:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            if not self._sleep(1):
                return

    def _models_big(self) -> None:
        """64 MB of models, or as many MB as the segment after ``/big/`` says (``/big/200/``)."""
        after = urlsplit(self.path).path.partition("/big/")[2].split("/", 1)[0]
        size_mb = float(after) if after.replace(".", "", 1).isdigit() else 64
        piece = b'{"id": "model-' + b"x" * 65_000 + b'", "object": "model"},'
        count = max(1, int(size_mb * 1024 * 1024 // len(piece)))
        head, tail = b'{"object": "list", "data": [', b"{}]}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(head) + len(piece) * count + len(tail)))
        self.end_headers()
        self.wfile.write(head)
        for _ in range(count):
            self.wfile.write(piece)
        self.wfile.write(tail)

    def _models_missing(self) -> None:
        self._whole(404, "application/json", b'{"error": {"message": "not found"}}')

    def _models_html404(self) -> None:
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        page = (
            "<!DOCTYPE html><html><head><title>Not Found</title></head><body>"
            f"<h1>Not Found</h1><p>No route for this key: {key}</p>"
            "<script>alert(1)</script>" + "<p>padding</p>" * 800 + "</body></html>"
        )
        self._whole(404, "text/html; charset=utf-8", page.encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.noted = self.server.note(self, body)
        parts = urlsplit(self.path)
        spoken = wire_for(parts.path, parts.query)
        model = str(body.get("model", "")) if spoken is None or spoken[1] is None else spoken[1]
        model = unquote(model)
        try:
            if spoken is None:
                self._route(model, body)
            else:
                self._dialect(spoken[0], model, body)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.server.closed(model)
            self.close_connection = True
        else:
            self.server.finished(model)

    def _route(self, model: str, body: dict) -> None:
        kind, _, arg = model.partition(":")
        handler = getattr(self, f"_do_{kind.replace('-', '_')}", None)
        if handler is None:
            self._whole(
                404,
                "application/json",
                json.dumps(
                    {
                        "error": {
                            "message": f"model {model} does not exist",
                            "code": "model_not_found",
                        }
                    }
                ).encode(),
            )
            return
        handler(arg, body)

    def _do_replay(self, name: str, body: dict) -> None:
        gap = float(self.headers.get("X-Gap-Ms", "10")) / 1000
        self._start()
        if (DEMOS / name).exists():
            started = time.monotonic()
            for line in (DEMOS / name).read_bytes().splitlines():
                record = json.loads(line)
                if record.get("type") != "read":
                    continue
                wait = record["t"] / 1000 - (time.monotonic() - started)
                if wait > 0 and not self._sleep(wait):
                    return
                self._write(
                    record["text"].encode()
                    if "text" in record
                    else __import__("base64").b64decode(record["base64"])
                )
        else:
            data = (CAPTURES / name).read_bytes()
            separator = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
            for event in data.split(separator):
                if event.strip():
                    self._write(event + separator)
                    if not self._sleep(gap):
                        return
        self._finish()

    def _paced_tokens(self, interval: float, total: int) -> bool:
        """Tokens ``t0 ``, ``t1 ``... one every ``interval`` seconds from now, each stamped
        with ``x_sent_ms``; False when the client went away."""
        started = time.monotonic()
        for i in range(total):
            wait = started + i * interval - time.monotonic()
            if wait > 0 and not self._sleep(wait):
                return False
            self._write(chunk(f"t{i} ", x_sent_ms=time.time() * 1000))
        return True

    def _do_rate(self, arg: str, body: dict) -> None:
        per_second, _, count = arg.partition(":")
        interval, total = 1 / float(per_second), int(count or 200)
        self._start()
        if not self._paced_tokens(interval, total):
            return
        self._write(chunk(None, "stop"))
        self._write(
            b'data: {"id":"chatcmpl-fake","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":%d,"total_tokens":%d}}\n\n'
            % (total, total + 1)
        )
        self._write(b"data: [DONE]\n\n")
        self._finish()

    def _do_slow(self, arg: str, body: dict) -> None:
        self._start()
        for i in range(int(arg or 50)):
            self._write(chunk(f"word{i} "))
            if not self._sleep(0.1):
                return
        self._write(chunk(None, "stop") + b"data: [DONE]\n\n")
        self._finish()

    def _do_stall(self, arg: str, body: dict) -> None:
        self._start()
        self._sleep(30)

    def _do_drip(self, arg: str, body: dict) -> None:
        self._start()
        for byte in chunk("drip"):
            self._write(bytes([byte]))
            if not self._sleep(2):
                return
        self._finish()

    def _do_close(self, arg: str, body: dict) -> None:
        data = b"".join(chunk(f"part{i} ") for i in range(50))
        limit = int(arg or 100)
        self._start()
        self._write(data[:limit])
        self.close_connection = True
        self.connection.shutdown(2)

    def _do_reset(self, arg: str, body: dict) -> None:
        data = b"".join(chunk(f"part{i} ") for i in range(50))
        self._start()
        self._write(data[: int(arg or 100)])
        self._sleep(0.3)  # read by the client before the reset
        reset(self)

    def _do_hold(self, arg: str, body: dict) -> None:
        self._start()
        hold(self)

    def _do_mute(self, arg: str, body: dict) -> None:
        hold(self)

    def _do_429(self, arg: str, body: dict) -> None:
        if self.server.attempts("429") % 2 == 1:
            self._whole(
                429,
                "application/json",
                b'{"error": {"message": "Rate limit reached, retry after 1s"}}',
                {"Retry-After": "1"},
            )
        else:
            self._start()
            self._write(chunk("after retry") + chunk(None, "stop") + b"data: [DONE]\n\n")
            self._finish()

    def _do_429always(self, arg: str, body: dict) -> None:
        self._whole(
            429,
            "application/json",
            b'{"error": {"message": "Rate limit reached"}}',
            {"Retry-After": "0"},
        )

    def _do_500(self, arg: str, body: dict) -> None:
        self._whole(
            500,
            "application/json",
            b'{"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}',
        )

    def _do_html(self, arg: str, body: dict) -> None:
        if arg:
            title = f"{HTTPStatus(int(arg)).phrase}"
            page = f"<html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>"
            self._whole(int(arg), "text/html", page.encode())
            return
        self._whole(
            502,
            "text/html",
            b"<html><body><h1>502 Bad Gateway</h1><script>alert(1)</script></body></html>",
        )

    def _do_echo_split(self, arg: str, body: dict) -> None:
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        foreign = FOREIGN_KEY
        text = f"key {key} and {foreign} seen"
        event = chunk(text)
        cuts = [event.index(key.encode()) + len(key) // 2, event.index(foreign.encode()) + 11]
        self._start()
        for start, end in zip([0, *cuts], [*cuts, len(event)], strict=True):
            self._write(event[start:end])
            if not self._sleep(0.15):  # separate network reads
                return
        self._write(chunk(None, "stop") + b"data: [DONE]\n\n")
        self._finish()

    def _do_echo_escaped(self, arg: str, body: dict) -> None:
        """The key and the request as JSON strings may carry them (issue 26, item 2): the
        key's first letter as ``\\u00XX``, the key with its slashes as ``\\/``, and the
        whole request body as a string inside the content string; each cut over two writes."""
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        in_string = json.dumps(key)[1:-1]
        forms = [
            f"\\u{ord(key[0]):04x}{in_string[1:]}",
            in_string.replace("/", "\\/"),
            json.dumps(json.dumps(body))[1:-1],
        ]
        text = " | ".join(forms)
        event = (
            b'data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":1,'
            b'"model":"fake","choices":[{"index":0,"delta":{"content":"'
            + text.encode()
            + b'"},"finish_reason":null}]}\n\n'
        )
        cuts = sorted(event.index(form.encode()) + len(form) // 2 for form in forms)
        self._start()
        for start, end in zip([0, *cuts], [*cuts, len(event)], strict=True):
            self._write(event[start:end])
            if not self._sleep(0.15):  # separate network reads
                return
        self._write(chunk(None, "stop") + b"data: [DONE]\n\n")
        self._finish()

    def _do_flood(self, arg: str, body: dict) -> None:
        total = float(arg or 20) * 1024 * 1024
        piece = b"".join(chunk(f"flood{i} " * 8) for i in range(100))
        self._start()
        sent = 0
        while sent < total:
            self._write(piece)
            sent += len(piece)
        self._write(chunk(None, "stop") + b"data: [DONE]\n\n")
        self._finish()

    def _do_json(self, arg: str, body: dict) -> None:
        completion = {
            "id": "chatcmpl-whole",
            "object": "chat.completion",
            "created": 1,
            "model": "fake",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "A whole answer, not streamed."},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11},
        }
        self._whole(200, "application/json", json.dumps(completion).encode())

    def _do_redirect(self, arg: str, body: dict) -> None:
        self._whole(
            302,
            "text/plain",
            b"moved",
            {"Location": f"http://127.0.0.1:{self.server.other_port}/v1/chat/completions"},
        )

    def _do_echo_key(self, arg: str, body: dict) -> None:
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self._whole(
            401,
            "application/json",
            json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}}).encode(),
        )


class FakeUpstream(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a proxy's burst of connections is not reset (socketserver: 5)

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.other_port = 9  # where redirects point (discard port: nothing should connect)
        self.requests: list[dict] = []
        self.ends: list[tuple[str, str, float]] = []  # (model, "closed"|"finished", time)
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._thread = threading.Thread(
            target=self.serve_forever, name="fake-upstream", daemon=True
        )

    def start(self) -> FakeUpstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()

    def note(self, handler: Handler, body: dict | None) -> dict:
        record = {
            "path": handler.path,
            "method": handler.command,
            "headers": {name.lower(): value for name, value in handler.headers.items()},
            "body": body,
            "time": time.monotonic(),
            "writes": [],
        }
        with self._lock:
            self.requests.append(record)
        return record

    def attempts(self, key: str) -> int:
        with self._lock:
            self._attempts[key] = self._attempts.get(key, 0) + 1
            return self._attempts[key]

    def closed(self, model: str) -> None:
        with self._lock:
            self.ends.append((model, "closed", time.monotonic()))

    def finished(self, model: str) -> None:
        with self._lock:
            self.ends.append((model, "finished", time.monotonic()))

    def wait_end(self, model: str, timeout: float = 10) -> tuple[str, float]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                for name, how, when in self.ends:
                    if name == model:
                        return how, when
            time.sleep(0.02)
        raise AssertionError(f"the upstream never saw the end of {model}")


def reset(handler: BaseHTTPRequestHandler) -> None:
    """End the connection with a TCP reset (linger 0), not a polite close."""
    handler.close_connection = True
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.wfile.close()
    handler.rfile.close()
    handler.connection.close()  # the last reference to the socket: the reset goes out now
    handler.wfile = handler.rfile = io.BytesIO()  # what the server still flushes and closes


def hold(handler: Handler) -> None:
    """Send nothing until the client goes away (noted as a close), or 30 s."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not handler.server.stopping.is_set():
        ready, _, _ = select.select([handler.connection], [], [], 0.05)
        if ready:
            try:
                gone = handler.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                gone = True
            if gone:
                raise ConnectionResetError("the client went away")
