"""The fake upstream's other dialects: how each API frames its stream, reads its key and says
an error, for ``tests/fake_upstream.py``'s routes (docs/dialects.md has the dialects).

Each ``Wire`` turns payloads into the writes its API makes (SSE events, with ``event:`` lines
where the API sends them; NDJSON lines; the elements of Gemini's JSON array), splits a real
capture from ``tests/captures/dialects`` into the same writes, and knows the payloads of a
plain text answer, so that the chat fake's faults apply to every dialect.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.captures.jsonl import split_array

DIALECT_CAPTURES = Path(__file__).resolve().parent / "captures" / "dialects"
FOREIGN_KEY = "sk-proj-FOREIGNabcdef0123456789XYZ"  # key-shaped, not any request's key
Payload = dict[str, Any] | str  # a str is sent as it is (``[DONE]``)


def dumps(payload: Payload) -> bytes:
    return payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()


def sse_events(data: bytes) -> list[bytes]:
    """A capture's SSE events, each with its blank line (CRLF or LF, as the capture has)."""
    separator = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
    return [event + separator for event in data.split(separator) if event.strip()]


def sse_payloads(data: bytes) -> list[bytes]:
    """The ``data:`` values of a capture's events, as sent."""
    out = []
    for event in sse_events(data):
        for line in event.splitlines():
            if line.startswith(b"data:"):
                out.append(line[5:].strip())
    return out


@dataclass(frozen=True)
class Wire:
    name: str
    content_type: str
    key_header: str  # where the API's clients put the key
    key_prefix: str = ""
    named_events: bool = False  # SSE with ``event:`` lines (the payload's type)
    separator: bytes = b"\n\n"
    array: bool = False  # Gemini without alt=sse: one JSON array, element by element

    # ------------------------------------------------------------------ framing
    def frames(self, payloads: list[Payload]) -> list[bytes]:
        if self.content_type == "application/x-ndjson":
            return [dumps(p) + b"\n" for p in payloads]
        return [self.event(p) for p in payloads]

    def event(self, payload: Payload) -> bytes:
        name = payload.get("type") if self.named_events and isinstance(payload, dict) else None
        head = f"event: {name}\n".encode() if name else b""
        return head + b"data: " + dumps(payload) + self.separator

    def split(self, data: bytes) -> list[bytes]:
        """A real capture as the writes its server made: one per event or line."""
        if self.content_type == "application/x-ndjson":
            return data.splitlines(keepends=True)
        return sse_events(data)

    def key(self, headers: Any) -> str:
        """The key the client sent, in this API's header, or as a bearer token (Anthropic
        takes both: its Python SDK 2.14 sends ``Authorization: Bearer``)."""
        sent = headers.get(self.key_header) or headers.get("authorization", "")
        return str(sent).removeprefix(self.key_prefix).removeprefix("Bearer ")

    # ------------------------------------------------------------------ answers
    def text(self, pieces: list[str]) -> list[Payload]:
        raise NotImplementedError

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"message": message, "type": "fake_error", "code": status}}


class Anthropic(Wire):
    def text(self, pieces: list[str]) -> list[Payload]:
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "fake",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        }
        return [
            {"type": "message_start", "message": message},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            *(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": p},
                }
                for p in pieces
            ),
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": len(pieces)},
            },
            {"type": "message_stop"},
        ]

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"type": "error", "error": {"type": "api_error", "message": message}}


class Responses(Wire):
    def text(self, pieces: list[str]) -> list[Payload]:
        whole = "".join(pieces)
        part = {"type": "output_text", "text": "", "annotations": []}
        item = {
            "id": "msg_fake",
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        done_part = {**part, "text": whole}
        done_item = {**item, "status": "completed", "content": [done_part]}
        response = {
            "id": "resp_fake",
            "object": "response",
            "created_at": 1,
            "model": "fake",
            "output": [],
        }
        usage = {"input_tokens": 5, "output_tokens": len(pieces), "total_tokens": 5 + len(pieces)}
        where = {"item_id": "msg_fake", "output_index": 0, "content_index": 0}
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": {**response, "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.content_part.added", **where, "part": part},
            *({"type": "response.output_text.delta", **where, "delta": p} for p in pieces),
            {"type": "response.output_text.done", **where, "text": whole},
            {"type": "response.content_part.done", **where, "part": done_part},
            {"type": "response.output_item.done", "output_index": 0, "item": done_item},
            {
                "type": "response.completed",
                "response": {
                    **response,
                    "status": "completed",
                    "output": [done_item],
                    "usage": usage,
                },
            },
        ]
        return [{**event, "sequence_number": number} for number, event in enumerate(events)]


class Completions(Wire):
    def text(self, pieces: list[str]) -> list[Payload]:
        def chunk(text: str, finish: str | None) -> dict[str, Any]:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
            return {
                "id": "cmpl-fake",
                "object": "text_completion",
                "created": 1,
                "model": "fake",
                "choices": [choice],
            }

        return [*(chunk(p, None) for p in pieces), chunk("", "stop"), "[DONE]"]


class Gemini(Wire):
    """SSE with ``alt=sse``; without it, one JSON array written element by element."""

    def as_array(self) -> Gemini:
        return replace(self, content_type="application/json; charset=UTF-8", array=True)

    def frames(self, payloads: list[Payload]) -> list[bytes]:
        if not self.array:
            return super().frames(payloads)
        writes = [(b"[" if i == 0 else b"\r\n,") + dumps(p) for i, p in enumerate(payloads)]
        return [*writes, b"]"] if writes else [b"[]"]

    def split(self, data: bytes) -> list[bytes]:
        """A capture in this wire's framing, whichever framing it was recorded in: the
        payloads are the same, only the framing differs."""
        if data.lstrip()[:1] == b"[":
            elements = [json.loads(data[a:b]) for a, b in split_array(data)]
            if self.array:
                ends = [end for _, end in split_array(data)]
                return [data[a:b] for a, b in zip([0, *ends], [*ends, len(data)], strict=True)]
            return self.frames(elements)
        if not self.array:
            return sse_events(data)
        return self.frames([json.loads(p) for p in sse_payloads(data)])

    def text(self, pieces: list[str]) -> list[Payload]:
        def chunk(text: str, **extra: Any) -> dict[str, Any]:
            content = {"parts": [{"text": text}], "role": "model"}
            return {
                "candidates": [{"content": content, "index": 0, **extra}],
                "modelVersion": "fake",
            }

        usage = {
            "promptTokenCount": 5,
            "candidatesTokenCount": len(pieces),
            "totalTokenCount": 5 + len(pieces),
        }
        return [
            *(chunk(p) for p in pieces),
            {**chunk("", finishReason="STOP"), "usageMetadata": usage},
        ]

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": "FAKE_ERROR"}}


class Ollama(Wire):
    generate: bool = False

    def text(self, pieces: list[str]) -> list[Payload]:
        def line(text: str, **extra: Any) -> dict[str, Any]:
            said = (
                {"response": text}
                if self.generate
                else {"message": {"role": "assistant", "content": text}}
            )
            return {"model": "fake", "created_at": "2026-01-01T00:00:00Z", **said, **extra}

        counts = {
            "total_duration": 1_000_000,
            "load_duration": 10_000,
            "prompt_eval_count": 5,
            "prompt_eval_duration": 100_000,
            "eval_count": len(pieces),
            "eval_duration": 800_000,
        }
        return [
            *(line(p, done=False) for p in pieces),
            line("", done=True, done_reason="stop", **counts),
        ]

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": message}


class OllamaGenerate(Ollama):
    generate = True


SSE_LF = {
    "content_type": "text/event-stream",
    "key_header": "authorization",
    "key_prefix": "Bearer ",
}
WIRES: dict[str, Wire] = {
    "anthropic": Anthropic("anthropic", "text/event-stream", "x-api-key", named_events=True),
    "responses": Responses("responses", named_events=True, **SSE_LF),
    "completions": Completions("completions", **SSE_LF),
    "gemini": Gemini("gemini", "text/event-stream", "x-goog-api-key", separator=b"\r\n\r\n"),
    "ollama": Ollama("ollama", "application/x-ndjson", "authorization", "Bearer "),
    "ollama-generate": OllamaGenerate(
        "ollama-generate", "application/x-ndjson", "authorization", "Bearer "
    ),
}


def wire_for(path: str, query: str) -> tuple[Wire, str | None] | None:
    """The wire a request path speaks, and the model when the path names it (Gemini); None
    for the chat fake's own routes."""
    if path.endswith("/messages"):
        return WIRES["anthropic"], None
    if path.endswith("/responses"):
        return WIRES["responses"], None
    if path.endswith("/completions") and not path.endswith("/chat/completions"):
        return WIRES["completions"], None
    if path.endswith("/api/chat"):
        return WIRES["ollama"], None
    if path.endswith("/api/generate"):
        return WIRES["ollama-generate"], None
    head, found, tail = path.rpartition(":streamGenerateContent")
    if found and not tail and "/models/" in head:
        gemini = WIRES["gemini"]
        assert isinstance(gemini, Gemini)
        wire = gemini if "alt=sse" in query.split("&") else gemini.as_array()
        return wire, head.split("/models/", 1)[1]
    return None


class DialectRoutes:
    """The chat fake's behaviours for every other dialect, picked by the model as there:
    ``replay:<capture in tests/captures/dialects>`` (paced by ``X-Gap-Ms``, 10 by default;
    Gemini's ``array:<capture>`` answers with the JSON array even when asked for SSE, as a
    proxy that drops ``alt=sse`` would), ``slow:<n>``, and the faults ``stall``, ``drip``,
    ``close:<bytes>``, ``reset:<bytes>``, ``hold``, ``429``, ``429always``, ``500``,
    ``html[:<status>]``, ``redirect``,
    ``echo-key``, ``echo-split``, ``flood:<MB>``. Mixed into the fake's handler, which
    provides the writing helpers."""

    wire: Wire

    def _start(
        self, status: int = 200, content_type: str = "", headers: dict | None = None
    ) -> None: ...
    def _write(self, data: bytes) -> None: ...
    def _finish(self) -> None: ...
    def _whole(
        self, status: int, content_type: str, body: bytes, headers: dict | None = None
    ) -> None: ...
    def _sleep(self, seconds: float) -> bool: ...

    def _dialect(self, wire: Wire, model: str, body: dict) -> None:
        self.wire = wire
        kind, _, arg = model.partition(":")
        handler = getattr(self, f"_wire_{kind.replace('-', '_')}", None)
        if handler is None:
            self._wire_error(404, f"model {model} does not exist")
            return
        handler(arg)

    def _wire_error(self, status: int, message: str, headers: dict | None = None) -> None:
        error = json.dumps(self.wire.error(status, message)).encode()
        self._whole(status, "application/json", error, headers)

    def _stream(self, writes: list[bytes], gap: float = 0.0) -> None:
        self._start(content_type=self.wire.content_type)
        for data in writes:
            self._write(data)
            if gap and not self._sleep(gap):
                return
        self._finish()

    def _gap(self) -> float:
        return float(self.headers.get("X-Gap-Ms", "10")) / 1000  # type: ignore[attr-defined]

    def _wire_replay(self, name: str) -> None:
        self._stream(self.wire.split((DIALECT_CAPTURES / name).read_bytes()), self._gap())

    def _wire_array(self, name: str) -> None:
        assert isinstance(self.wire, Gemini)
        self.wire = self.wire.as_array()
        self._wire_replay(name)

    def _wire_slow(self, arg: str) -> None:
        self._stream(
            self.wire.frames(self.wire.text([f"word{i} " for i in range(int(arg or 50))])), 0.1
        )

    def _wire_stall(self, arg: str) -> None:
        self._start(content_type=self.wire.content_type)
        self._sleep(30)

    def _wire_drip(self, arg: str) -> None:
        self._start(content_type=self.wire.content_type)
        for byte in b"".join(self.wire.frames(self.wire.text(["drip"]))):
            self._write(bytes([byte]))
            if not self._sleep(2):
                return
        self._finish()

    def _wire_close(self, arg: str) -> None:
        data = b"".join(self.wire.frames(self.wire.text([f"part{i} " for i in range(50)])))
        self._start(content_type=self.wire.content_type)
        self._write(data[: int(arg or 100)])
        self.close_connection = True
        self.connection.shutdown(2)  # type: ignore[attr-defined]

    def _wire_reset(self, arg: str) -> None:
        from .fake_upstream import reset

        data = b"".join(self.wire.frames(self.wire.text([f"part{i} " for i in range(50)])))
        self._start(content_type=self.wire.content_type)
        self._write(data[: int(arg or 100)])
        self._sleep(0.3)  # read by the client before the reset
        reset(self)  # type: ignore[arg-type]

    def _wire_hold(self, arg: str) -> None:
        from .fake_upstream import hold

        self._start(content_type=self.wire.content_type)
        hold(self)  # type: ignore[arg-type]

    def _wire_429(self, arg: str) -> None:
        if self.server.attempts(f"{self.wire.name}:429") % 2 == 1:  # type: ignore[attr-defined]
            self._wire_error(429, "Rate limit reached, retry after 1s", {"Retry-After": "1"})
        else:
            self._stream(self.wire.frames(self.wire.text(["after retry"])))

    def _wire_429always(self, arg: str) -> None:
        self._wire_error(429, "Rate limit reached", {"Retry-After": "0"})

    def _wire_500(self, arg: str) -> None:
        self._wire_error(500, "The server had an error while processing your request.")

    def _wire_html(self, arg: str) -> None:
        status = int(arg or 502)
        page = (
            f"<html><head><title>Fake {status}</title></head><body><h1>{status}</h1></body></html>"
        )
        self._whole(status, "text/html", page.encode())

    def _wire_redirect(self, arg: str) -> None:
        port = self.server.other_port  # type: ignore[attr-defined]
        where = {"Location": f"http://127.0.0.1:{port}{self.path}"}  # type: ignore[attr-defined]
        self._whole(302, "text/plain", b"moved", where)

    def _wire_echo_key(self, arg: str) -> None:
        self._wire_error(401, f"Incorrect API key provided: {self.wire.key(self.headers)}")  # type: ignore[attr-defined]

    def _wire_echo_split(self, arg: str) -> None:
        """A stream whose text repeats the key and a key-shaped string, each cut over two
        writes, far apart."""
        key = self.wire.key(self.headers)  # type: ignore[attr-defined]
        data = b"".join(self.wire.frames(self.wire.text([f"key {key} and {FOREIGN_KEY} seen"])))
        cuts = [data.index(key.encode()) + len(key) // 2, data.index(FOREIGN_KEY.encode()) + 11]
        self._start(content_type=self.wire.content_type)
        for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
            self._write(data[start:end])
            if not self._sleep(0.15):  # separate network reads
                return
        self._finish()

    def _wire_flood(self, arg: str) -> None:
        """About ``arg`` megabytes of one text answer, as fast as the socket takes them."""
        piece = "flood " * 12
        count = int(float(arg or 20) * 1024 * 1024 / (len(piece) + 100))
        frames = self.wire.frames(self.wire.text([piece] * count))
        self._start(content_type=self.wire.content_type)
        for start in range(0, len(frames), 100):
            self._write(b"".join(frames[start : start + 100]))
        self._finish()
