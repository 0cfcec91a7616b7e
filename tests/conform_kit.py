"""Hand-made answers for conform's checks: a run read back from a timed capture built here,
as the runner reads its own (app/conform/model.py ``read_run``), and a clean one built by the
fake's conform model without a socket."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from app.captures.timed import end_line, header_line, read_line, response_line
from app.conform.model import Case, Context, Result, Run, read_run
from app.live.apis import api_named

from .fake_conform import AnthropicConform, CompletionsConform, ConformAnswer, ResponsesConform

CTX = Context(model="conform")
ANTHROPIC = Context(model="conform", api="anthropic")
RESPONSES = Context(model="conform", api="responses")
COMPLETIONS = Context(model="conform", api="completions")


def chunk(choices: list[dict[str, Any]], id: str = "chatcmpl-1", **extra: Any) -> dict:
    return {
        "id": id,
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": choices,
        **extra,
    }


def delta(choice: int = 0, finish: str | None = None, **fields: Any) -> dict:
    return {"index": choice, "delta": fields, "finish_reason": finish}


def text_stream(pieces: list[str], finish: str = "stop", id: str = "chatcmpl-1") -> list[Any]:
    """A clean text answer's payloads: role, text pieces, finish, [DONE]."""
    return [
        chunk([delta(role="assistant", content="")], id=id),
        *(chunk([delta(content=p)], id=id) for p in pieces),
        chunk([delta(finish=finish)], id=id),
        "[DONE]",
    ]


def sse(payloads: list[Any], named: bool = False) -> list[bytes]:
    """SSE events; ``named``: with ``event:`` lines naming each payload's type (Anthropic)."""
    out = []
    for p in payloads:
        head = f"event: {p['type']}\n".encode() if named and isinstance(p, dict) else b""
        data = p.encode() if isinstance(p, str) else json.dumps(p).encode()
        out.append(head + b"data: " + data + b"\n\n")
    return out


def run_of(
    payloads: list[Any] | None = None,
    *,
    request: dict | None = None,
    status: int = 200,
    content_type: str = "text/event-stream",
    body: bytes | None = None,
    reason: str = "done",
    hung_up: bool = False,
    gap_ms: float = 2.0,
    api: str = "chat",
) -> Run:
    """A run whose answer is these payloads as SSE events (or ``body`` as it is)."""
    request = request or {"model": "m", "messages": [], "stream": True}
    lines = [
        header_line(created="2026-01-01T00:00:00Z", request=request, api=api),
        response_line(10.0, status, content_type),
    ]
    named = api in ("anthropic", "responses")
    writes = [body] if body is not None else sse(payloads or [], named=named)
    t = 10.0
    for write in writes:
        t += gap_ms
        lines.append(read_line(t, write))
    lines.append(end_line(t + 1, reason, None if reason == "done" else "ended"))
    dialect = api_named(api).dialect
    return read_run(b"".join(lines), request, hung_up=hung_up, dialect=dialect)


def clean(case: Case, body: dict | None = None) -> Run:
    """The fake conform model's answer to the case's request, read as a run."""
    body = body or case.request(CTX)
    events = ConformAnswer(body).events()
    payloads = [e.removeprefix(b"data: ").strip().decode() for e in events]
    return run_of([p if p == "[DONE]" else json.loads(p) for p in payloads], request=body)


def clean_anthropic(case: Case, body: dict | None = None) -> Run:
    """The fake conform model's Anthropic answer to the case's request, as sent."""
    body = body or api_named("anthropic").body(case.request(ANTHROPIC))
    return run_of(AnthropicConform(body).payloads(), request=body, api="anthropic")


def clean_responses(case: Case, body: dict | None = None) -> Run:
    """The fake conform model's Responses answer to the case's request, as sent."""
    body = body or api_named("responses").body(case.request(RESPONSES))
    return run_of(ResponsesConform(body).payloads(), request=body, api="responses")


def clean_completions(case: Case, body: dict | None = None) -> Run:
    """The fake conform model's legacy completions answer to the case's request, as sent."""
    body = body or api_named("completions").body(case.request(COMPLETIONS))
    return run_of(CompletionsConform(body).payloads(), request=body, api="completions")


def completion(text: str, choice: int = 0, finish: str | None = None, **extra: Any) -> dict:
    """A legacy completions chunk with one choice."""
    choices = [{"index": choice, "text": text, "logprobs": None, "finish_reason": finish, **extra}]
    return {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 1,
        "model": "m",
        "choices": choices,
    }


def result(*runs: Run, api: str = "chat") -> Result:
    context = {"anthropic": ANTHROPIC, "responses": RESPONSES, "completions": COMPLETIONS}.get(
        api, CTX
    )
    return Result(list(runs), context)


def documented_verdicts(heading: str) -> dict[str, str]:
    """Each row's verdict in the card under ``## {heading}`` in docs/conform.md (a real server's
    card, which its test holds to what the server does)."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "conform.md").read_text()
    section = doc.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    card = section.split("```\n", 2)[1]
    rows = itertools.takewhile(str.strip, card.splitlines()[3:])  # to the summary's blank line
    return {row.split()[0]: row.split()[1].lower() for row in rows}
