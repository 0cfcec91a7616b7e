"""What a conform case is and what it judges, without I/O (docs/conform.md).

A ``Case`` builds its request (the common chat-completions form, ``app/live/apibodies.py``)
from the ``Context`` and checks the ``Result``: the ``Run`` of each request it made, each read
back from the timed capture it was recorded as. ``Run`` has the few readings the checks share
(text, finishes, tool calls, usage, the chunks as sent). A check gives a ``Verdict``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..captures import Limits, read_capture
from ..captures.model import Capture
from ..captures.timed import read_records
from ..domain.events import (
    Finish,
    Logprobs,
    Meta,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from ..domain.stream import Stream

Body = dict[str, Any]
VERDICTS = ("pass", "warn", "fail", "unsupported")
WORST = ("pass", "unsupported", "warn", "fail")  # least to most


@dataclass(frozen=True)
class Verdict:
    verdict: str  # one of VERDICTS
    why: str


def passed(why: str) -> Verdict:
    return Verdict("pass", why)


def failed(why: str) -> Verdict:
    return Verdict("fail", why)


def warned(why: str) -> Verdict:
    return Verdict("warn", why)


def unsupported(why: str) -> Verdict:
    return Verdict("unsupported", why)


def worst(*verdicts: str) -> str:
    return max(verdicts, key=WORST.index)


@dataclass(frozen=True)
class Context:
    """What a case's request may depend on."""

    model: str
    api: str = "chat"


@dataclass
class Run:
    """One request's answer, as recorded: the HTTP status and media type (None when no
    response came), how the run ended, the stream read from its bytes, and whether the client
    hung up on purpose (``hangup`` cases)."""

    capture: bytes
    status: int | None
    content_type: str | None
    reason: str
    error: str | None
    stream: Stream | None
    body: bytes
    request: Body
    hung_up: bool = False

    # ---------------------------------------------------------------- readings
    def events(self, kind: type[Any]) -> list[Any]:
        if self.stream is None:
            return []
        return [e for e in self.stream.events if isinstance(e, kind)]

    def text(self, choice: int = 0) -> str:
        return "".join(e.text for e in self.events(TextDelta) if e.choice == choice)

    def text_chunks(self, choice: int = 0) -> list[str]:
        return [e.text for e in self.events(TextDelta) if e.choice == choice and e.text]

    def reasoning(self) -> list[ReasoningDelta]:
        return self.events(ReasoningDelta)

    def finishes(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for event in self.events(Finish):
            out.setdefault(event.choice, []).append(str(event.reason))
        return out

    def finish(self, choice: int = 0) -> str | None:
        reasons = self.finishes().get(choice)
        return reasons[-1] if reasons else None

    def calls(self, choice: int = 0) -> list[ToolCallEnd]:
        return [e for e in self.events(ToolCallEnd) if e.choice == choice]

    def call_starts(self, choice: int = 0) -> list[ToolCallStart]:
        return [e for e in self.events(ToolCallStart) if e.choice == choice]

    def usages(self) -> list[Usage]:
        return self.events(Usage)

    def logprobs(self) -> list[Logprobs]:
        return self.events(Logprobs)

    def chunks(self) -> list[Any]:
        """Each event's ``data:`` as JSON, in order (``[DONE]`` and what is not JSON left out)."""
        if self.stream is None:
            return []
        out = []
        for index, raw in enumerate(self.stream.raw):
            if raw.kind != "event":
                continue
            lines = self.stream.raw_text(index).splitlines()
            data = "\n".join(line[5:].lstrip() for line in lines if line.startswith("data:"))
            try:
                out.append(orjson.loads(data))
            except orjson.JSONDecodeError:
                continue
        return out

    def response_ids(self) -> set[str]:
        """The response ids the stream names: each chunk's ``id`` (chat completions), the
        message's (Anthropic's ``message_start``), as the meta events give them."""
        ids = {str(c["id"]) for c in self.chunks() if isinstance(c, dict) and c.get("id")}
        for meta in self.events(Meta):
            if meta.fields.get("id"):
                ids.add(str(meta.fields["id"]))
        return ids

    def error_body(self) -> Any:
        """The answer's body as JSON (an error answer's), or None when it is not JSON."""
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None

    def error_message(self) -> str:
        """What an error answer says, in a line."""
        answer = self.error_body()
        error = answer.get("error") if isinstance(answer, dict) else None
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
        if self.error:
            return self.error[:300]
        return self.body[:200].decode(errors="replace") or "no body"


@dataclass
class Result:
    """Every run of one case, in the order they were made (``copies`` at once come together)."""

    runs: list[Run]
    context: Context

    @property
    def first(self) -> Run:
        return self.runs[0]


@dataclass(frozen=True)
class Case:
    """One case of the battery (docs/conform.md, "Cases"). ``then`` makes a second request once
    the first has ended (given its run); ``hangup``: the client hangs up the first request
    after its first chunk with output; ``copies``: the first request is sent that many times at
    once. ``optional``: the request uses a parameter a server may not support, so its
    documented 400 is the verdict ``unsupported``. ``answer`` is what every run should be:
    ``stream`` (a 200 event stream that ends normally) or ``error`` (the case judges it)."""

    name: str
    apis: tuple[str, ...]
    expects: str  # one sentence
    request: Callable[[Context], Body]
    check: Callable[[Result], Verdict]
    then: Callable[[Context, Run], Body] | None = None
    hangup: bool = False
    copies: int = 1
    optional: bool = False
    answer: str = "stream"
    extra: dict[str, Any] = field(default_factory=dict)


def user(prompt: str, ctx: Context, /, **fields: Any) -> Body:
    """A streamed request with one user message (usage not asked for unless given)."""
    return {
        "model": ctx.model,
        "messages": [{"role": "user", "content": prompt}],
        "stream": True,
        **fields,
    }


def read_run(
    capture: bytes, request: Body, *, hung_up: bool = False, dialect: str | None = None
) -> Run:
    """A recorded run read back from its timed capture (pure); ``dialect`` names the API's
    (None: detected)."""
    records = read_records(capture, Capture(format=None))
    status = records.response.get("status") if records.response else None
    end = records.end or {}
    parsed = read_capture(capture, "timed", Limits(dialect=dialect))
    stream = parsed.streams[0] if parsed.streams else None
    return Run(
        capture=capture,
        status=status if isinstance(status, int) else None,
        content_type=records.content_type,
        reason=str(end.get("reason") or "error"),
        error=end.get("error") if isinstance(end.get("error"), str) else None,
        stream=stream,
        body=b"".join(data for _, data in records.reads),
        request=request,
        hung_up=hung_up,
    )
