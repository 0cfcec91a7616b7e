"""``streamscope record``: one live request, written as a timed capture, text printed as it
streams, metrics at the end. Uses the same upstream client, API records (``apis.py``: ``--api``
names one, ``chat`` by default) and parser as the server.

Exits 0 when the run ended as it should (``done``) with something recorded; any failed run
(refused connection, HTTP error, an HTML page, an error in the stream, a timeout, a dropped
connection) exits 2, after writing what it received. Ctrl-C (SIGINT) and SIGTERM stop the run
as the page's Stop does: the recording ends with an end line saying why (``cancelled``), and
the command exits 130 or 143, as shells expect of a command a signal ended."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import orjson

from ..captures.timed import end_line, header_line, read_line, response_line
from ..domain.events import ReasoningDelta, RefusalDelta, TextDelta, ToolCallArgs, ToolCallStart
from ..domain.metrics import compute
from .apis import api_named
from .policy import Policy
from .recorded import RecordedStream
from .recorder import clean_body, public_source
from .redact import Redactor
from .request import RunRequest
from .upstream import UpstreamRun

EXIT_OK = 0
EXIT_FAILED = 2
# A run a signal stopped: the reason its end line gives, and the exit status (128 + signal).
SIGNALS = {
    signal.SIGINT: ("interrupted (Ctrl-C)", 128 + signal.SIGINT),
    signal.SIGTERM: ("terminated (SIGTERM)", 128 + signal.SIGTERM),
}


class FileRecording:
    """A recording written to a file as it streams (``recorded.py``'s ``RecordingTarget``)."""

    def __init__(self, out: Any, header: bytes) -> None:
        self.out = out
        self.header: dict[str, Any] = orjson.loads(header)
        self.size = len(header)
        out.write(header)

    def response(
        self, t: float, status: int, content_type: str, headers: dict[str, str] | None = None
    ) -> bytes:
        return self._write(response_line(t, status, content_type))

    def read(self, t: float, data: bytes) -> bytes:
        return self._write(read_line(t, data))

    def end(self, t: float, reason: str, error: str | None) -> bytes:
        return self._write(end_line(t, reason, error))

    def _write(self, line: bytes) -> bytes:
        self.out.write(line)
        self.out.flush()
        return line


class FileSink:
    """Writes the recording and prints what the stream says, as it says it."""

    def __init__(self, request: RunRequest, out: Any, echo: TextIO) -> None:
        redactor = Redactor(request.secrets())
        self.echo = echo
        self.printed = 0
        self.reason = "error"
        created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        header = header_line(
            created=created,
            source=public_source(request.url, redactor),
            api=request.api.name,
            request=clean_body(request.body, redactor),
        )
        self.recorded = RecordedStream(
            redactor, FileRecording(out, header), added=lambda line, at: self._print_new()
        )
        self.redactor = redactor
        self.builder = self.recorded.feed.builder

    def status(self, state: str, message: str) -> None:
        if state == "retrying":
            print(f"[{message}]", file=sys.stderr)

    def response(self, t: float, status: int, content_type: str) -> None:
        self.recorded.response(t, status, content_type)

    def read(self, t: float, data: bytes) -> None:
        self.recorded.read(t, data)

    def end(self, t: float, reason: str, error: str | None) -> None:
        self.reason, _ = self.recorded.end(t, reason, self.redactor.text(error) if error else None)
        error = self.builder.stream.end_error
        self.echo.write("\n")
        if error:
            print(f"[{self.reason}: {error}]", file=sys.stderr)

    def _print_new(self) -> None:
        events = self.builder.stream.events
        for event in events[self.printed :]:
            if isinstance(event, (TextDelta, RefusalDelta, ReasoningDelta, ToolCallArgs)):
                self.echo.write(event.text)
            elif isinstance(event, ToolCallStart):
                call_id = f" {event.id}" if event.id else ""
                self.echo.write(f"\n[tool call {event.name or 'unknown'}{call_id}] ")
        self.echo.flush()
        self.printed = len(events)


def build_body(args: argparse.Namespace) -> dict[str, Any]:
    """The request in the common (chat-completions) form; the API record writes its body."""
    if args.messages:
        messages = json.loads(Path(args.messages).read_text())
    else:
        messages = [{"role": "user", "content": args.prompt or "Say hello."}]
    body: dict[str, Any] = {
        "model": args.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    for name in ("temperature", "max_tokens", "seed", "n"):
        if getattr(args, name) is not None:
            body[name] = getattr(args, name)
    if args.logprobs is not None:
        body["logprobs"] = True
        body["top_logprobs"] = args.logprobs
    if args.tools:
        body["tools"] = json.loads(Path(args.tools).read_text())
    if args.tool_choice:
        body["tool_choice"] = (
            args.tool_choice
            if args.tool_choice in ("auto", "none", "required")
            else {"type": "function", "function": {"name": args.tool_choice}}
        )
    if args.body:
        body.update(json.loads(args.body))
    return body


def record(args: argparse.Namespace) -> int:
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    if args.api_key_env and not key:
        print(f"streamscope: {args.api_key_env} is not set", file=sys.stderr)
        return EXIT_FAILED
    try:
        api = api_named(args.api)
        common = build_body(args)
        body = api.body(common)
        api.url(args.base_url, args.model)  # a model that cannot go in the URL is refused
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        print(f"streamscope: {exc}", file=sys.stderr)
        return EXIT_FAILED
    request = RunRequest(base_url=args.base_url, body=body, api_key=key, api=api, model=args.model)
    with open(args.output, "wb") as out:
        sink = FileSink(request, out, sys.stdout)
        run = UpstreamRun(request, sink, Policy(public=False))
        with stopped_by_signals(run) as caught:
            run_to_its_end(run, caught)
    metrics = compute(sink.builder.stream)
    print(render_metrics(metrics.to_json()), file=sys.stderr)
    print(f"recorded to {args.output} ({sink.reason})", file=sys.stderr)
    removed = sink.redactor.redactions.as_list()
    if removed:
        listed = ", ".join(f"{item['count']} x {item['kind']}" for item in removed)
        print(f"removed before writing: {listed}", file=sys.stderr)
    if caught:
        return SIGNALS[caught[0]][1]
    return EXIT_OK if sink.reason == "done" and sink.builder.stream.raw else EXIT_FAILED


@contextmanager
def stopped_by_signals(run: UpstreamRun) -> Iterator[list[signal.Signals]]:
    """While the run lasts, SIGTERM stops it (the first signal's reason wins, and is listed in
    what this gives); Ctrl-C does too, through ``run_to_its_end``. The handlers are put back
    after. Only the main thread can take signals; elsewhere nothing changes."""
    caught: list[signal.Signals] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return

    def on_term(signum: int, frame: object) -> None:
        stop(run, caught, signal.Signals(signum))

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield caught
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop(run: UpstreamRun, caught: list[signal.Signals], signum: signal.Signals) -> None:
    caught.append(signum)
    run.stop("cancelled", SIGNALS[signum][0])


def run_to_its_end(run: UpstreamRun, caught: list[signal.Signals]) -> None:
    """The run on a thread of its own, waited for here, so that Ctrl-C reaches this thread
    between waits and stops the run (which then writes its end line) instead of unwinding
    through a half-written recording. The wait is on an event the run sets when it has ended:
    a ``Thread.join`` that Ctrl-C interrupts may take a running thread for a finished one."""
    ended = threading.Event()

    def work() -> None:
        try:
            run.run()
        finally:
            ended.set()

    worker = threading.Thread(target=work, name="record-run")
    worker.start()
    while not ended.is_set():
        try:
            ended.wait(0.1)
        except KeyboardInterrupt:
            stop(run, caught, signal.SIGINT)
    worker.join()


def render_metrics(m: dict[str, Any]) -> str:
    def ms(value: float | None) -> str:
        return "unknown" if value is None else f"{value:,.1f} ms"

    tokens = (
        f"{m['output_tokens']} tokens ({m['tokens_source']})"
        if m["output_tokens"] is not None
        else "tokens unknown"
    )
    return (
        f"TTFT {ms(m['ttft_ms'])}, TTFO {ms(m['ttfo_ms'])}, ITL p50 {ms(m['itl_p50_ms'])} p95 {ms(m['itl_p95_ms'])}, "
        f"E2EL {ms(m['e2el_ms'])}, {tokens}"
    )
