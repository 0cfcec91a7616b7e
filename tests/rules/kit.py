"""Reading a capture made in a test and judging it by the catalogue."""

from __future__ import annotations

import orjson

from app.captures import read_capture
from app.domain.findings.model import Finding
from app.domain.rules import find
from app.domain.stream import Stream


def sse(*payloads: object, done: bool = True, comments: tuple[str, ...] = ()) -> bytes:
    """An SSE body: each payload as one ``data:`` event (dicts as JSON, str as written)."""
    lines = [f": {c}\n\n".encode() for c in comments]
    for payload in payloads:
        text = payload if isinstance(payload, str) else orjson.dumps(payload).decode()
        lines.append(f"data: {text}\n\n".encode())
    if done:
        lines.append(b"data: [DONE]\n\n")
    return b"".join(lines)


def streams(data: bytes, fmt: str | None = None) -> list[Stream]:
    return read_capture(data, fmt).streams


def findings(data: bytes, fmt: str | None = None, **kwargs: object) -> list[Finding]:
    """The findings of every stream in the capture, in order."""
    return [f for stream in streams(data, fmt) for f in find(stream, **kwargs)]  # type: ignore[arg-type]


def rules_of(data: bytes, fmt: str | None = None, **kwargs: object) -> set[str]:
    return {f.rule for f in findings(data, fmt, **kwargs)}


def chunk(
    delta: dict | None = None, finish: str | None = None, index: int = 0, **top: object
) -> dict:
    """A chat-completion chunk of one choice (``top`` adds or overrides top-level keys)."""
    value: dict = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": index, "delta": delta or {}, "finish_reason": finish}],
    }
    value.update(top)
    return value


def timed(
    body: bytes,
    request: dict | None = None,
    content_type: str = "text/event-stream",
    times: list[float] | None = None,
) -> bytes:
    """A timed capture (docs/capture-format.md) of ``body``, one read per SSE event (at
    ``times``, else 10 ms apart), with ``request`` in its header."""
    header = {
        "type": "header",
        "format": "streamscope.timed",
        "version": 1,
        "source": {"kind": "live"},
        "request": request or {},
        "response": {},
    }
    records = [header, {"type": "response", "t": 1.0, "status": 200, "content_type": content_type}]
    events = [e + b"\n\n" for e in body.split(b"\n\n") if e]
    for i, event in enumerate(events):
        t = times[i] if times is not None else 10.0 * (i + 1)
        records.append({"type": "read", "t": t, "text": event.decode()})
    records.append(
        {"type": "end", "t": (times[-1] if times else 10.0 * len(events)) + 1, "reason": "done"}
    )
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def usage(prompt: int = 3, completion: int = 2, total: int | None = None) -> dict:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion if total is None else total,
    }
