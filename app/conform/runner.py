"""The I/O of a conform run: each case's requests sent with the live runs' client
(``app/live/upstream.py``: deadlines, retries, network policy), each answer recorded as a timed
capture in memory, read back and judged (``judge.py``); ``--out`` gets the captures. The runner
knows no case: it does what the ``Case`` record says (``copies``, ``hangup``, ``then``).

Every resource is capped: cases at once (``concurrency``), a deadline per case (each of its
requests gets what is left of it), a case's copies at once (``MAX_COPIES``) and, where
``max_bytes`` says (the page: ``STREAMSCOPE_MAX_LIVE_MB``), a request's recording."""

from __future__ import annotations

import io
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..captures.timed import header_line
from ..domain.events import ReasoningDelta, RefusalDelta, TextDelta, ToolCallArgs, ToolCallStart
from ..domain.metrics import DEFAULT_STALL_MS
from ..live.apis import Api
from ..live.policy import Policy
from ..live.record import FileRecording
from ..live.recorded import RecordedStream
from ..live.recorder import clean_body, public_source
from ..live.redact import Redactor
from ..live.request import RunRequest, Timeouts
from ..live.upstream import UpstreamRun
from .arguments import MAX_CONCURRENCY
from .judge import CaseReport, Judge, assess
from .model import Body, Case, Context, Result, Run, read_run

log = logging.getLogger("streamscope.conform")
MAX_COPIES = 8
CONNECT_S = 10.0
OUTPUT = (TextDelta, ReasoningDelta, RefusalDelta, ToolCallArgs, ToolCallStart)


@dataclass
class Options:
    base_url: str
    api: Api
    model: str
    api_key: str | None = None
    concurrency: int = 2
    case_timeout_s: float = 60.0
    out: Path | None = None
    stall_ms: float = DEFAULT_STALL_MS
    judge: Judge | None = None
    # Where each capture is kept for a share link: ``(title, capture) -> {"url", ...}``, or
    # ``{"url": None, "error"}`` (``--server``: share.py uploads it; the page: its store).
    share: Callable[[str, bytes], dict[str, Any]] | None = None
    policy: Policy = field(default_factory=lambda: Policy(public=False))
    max_bytes: int | None = None  # a request's recording past this is stopped, too_large
    # Whether the battery is to stop (the page's report was deleted): the cases not started yet
    # are not run, each said in its row.
    cancelled: Callable[[], bool] = lambda: False

    @property
    def shown_url(self) -> str:
        """The base URL as the report shows it: credentials in it (user info, a key in the
        query) removed, as a recording's source is."""
        redactor = Redactor([self.api_key] if self.api_key else [])
        return str(public_source(self.base_url, redactor)["url"])


class CaptureSink:
    """A run's sink (``request.Sink``): the recording goes to memory, redacted as
    ``streamscope record`` writes it; with ``hangup``, the run is stopped at its first event
    with output."""

    def __init__(self, request: RunRequest, hangup: bool, max_bytes: int | None = None) -> None:
        self.out = io.BytesIO()
        self.max_bytes = max_bytes
        self.stopped = False
        redactor = Redactor(request.secrets())
        created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        header = header_line(
            created=created,
            source=public_source(request.url, redactor),
            api=request.api.name,
            request=clean_body(request.body, redactor),
        )
        self.redactor = redactor
        self.recorded = RecordedStream(redactor, FileRecording(self.out, header), added=self._added)
        self.hangup = hangup
        self.hung_up = False
        self.run: UpstreamRun | None = None

    def status(self, state: str, message: str) -> None:
        pass

    def response(self, t: float, status: int, content_type: str) -> None:
        self.recorded.response(t, status, content_type)

    def read(self, t: float, data: bytes) -> None:
        if self.stopped:
            return
        self.recorded.read(t, data)
        if self.max_bytes is not None and self.out.tell() > self.max_bytes and self.run:
            self.stopped = True
            self.run.stop(
                "too_large",
                f"the answer passed its cap of {self.max_bytes / 1e6:g} MB; it was stopped",
            )

    def end(self, t: float, reason: str, error: str | None) -> None:
        self.recorded.end(t, reason, self.redactor.text(error) if error else None)

    def _added(self, line: bytes, at: int) -> None:
        if not self.hangup or self.hung_up or self.run is None:
            return
        if any(isinstance(e, OUTPUT) for e in self.recorded.stream.events):
            self.hung_up = True
            self.run.stop("cancelled", "conform: the client hung up after the first chunk")


def request_once(options: Options, body: Body, seconds: float, *, hangup: bool = False) -> Run:
    """One request, recorded, read back."""
    sent = options.api.body(body)
    if seconds <= 0:
        return Run(b"", None, None, "error", "the case's deadline passed first", None, b"", sent)
    request = RunRequest(
        base_url=options.base_url,
        body=sent,
        api_key=options.api_key,
        api=options.api,
        model=options.model,
    )
    sink = CaptureSink(request, hangup, options.max_bytes)
    timeouts = Timeouts(
        connect=min(CONNECT_S, seconds), first_byte=seconds, idle=seconds, total=seconds
    )
    run = UpstreamRun(request, sink, options.policy, timeouts)
    sink.run = run
    run.run()
    return read_run(sink.out.getvalue(), sent, hung_up=sink.hung_up, dialect=options.api.dialect)


def run_case(case: Case, options: Options) -> CaseReport:
    started = time.monotonic()
    deadline = started + options.case_timeout_s
    context = Context(model=options.model, api=options.api.name)

    def left() -> float:
        return deadline - time.monotonic()

    try:
        body = case.request(context)
        copies = max(1, min(case.copies, MAX_COPIES))
        if copies > 1:
            with ThreadPoolExecutor(max_workers=copies) as pool:
                runs = list(pool.map(lambda _: request_once(options, body, left()), range(copies)))
        else:
            runs = [request_once(options, body, left(), hangup=case.hangup)]
        if case.then is not None and runs[0].status is not None:
            runs.append(request_once(options, case.then(context, runs[0]), left()))
        report = assess(case, Result(runs, context), stall_ms=options.stall_ms, judge=options.judge)
        report.captures = write_captures(case, runs, options.out)
        if options.share is not None:
            report.shared = [
                options.share(f"conform {case.name} ({options.model})", run.capture)
                for run in runs
                if run.capture
            ]
    except Exception as exc:  # a bug in a case must not end the battery
        log.exception("conform case %s failed", case.name)
        report = CaseReport(
            case.name, case.expects, "fail", f"the case could not run ({type(exc).__name__}: {exc})"
        )
        report.answered = True
    report.duration_ms = (time.monotonic() - started) * 1000
    return report


def write_captures(case: Case, runs: list[Run], out: Path | None) -> list[str]:
    """Each run's capture under ``out``: ``<case>.jsonl``, then ``<case>.2.jsonl``..."""
    if out is None:
        return []
    paths = []
    for number, run in enumerate(runs, 1):
        if not run.capture:
            continue
        path = out / (f"{case.name}.jsonl" if number == 1 else f"{case.name}.{number}.jsonl")
        path.write_bytes(run.capture)
        paths.append(str(path))
    return paths


@dataclass
class Battery:
    reports: list[CaseReport]
    reached: bool  # some case got an HTTP answer
    error: str | None  # why not, when none did
    duration_ms: float


def run_battery(
    cases: list[Case],
    options: Options,
    progress: Callable[[CaseReport], Any] = lambda report: None,
) -> Battery:
    """The first case alone (when nothing answers it the battery stops there), then the rest,
    ``options.concurrency`` at once; the reports in the cases' order."""
    started = time.monotonic()
    lock = threading.Lock()

    def one(case: Case) -> CaseReport:
        if options.cancelled():
            report = CaseReport(case.name, case.expects, "fail", "not run: the battery stopped")
        else:
            report = run_case(case, options)
        with lock:
            progress(report)
        return report

    first = one(cases[0])
    if not first.answered:
        return Battery([first], False, first.error, (time.monotonic() - started) * 1000)
    workers = max(1, min(options.concurrency, MAX_CONCURRENCY))
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="conform")
    try:
        rest = list(pool.map(one, cases[1:]))
    finally:  # Ctrl-C: the cases not started are dropped, the running ones end by their deadline
        pool.shutdown(wait=False, cancel_futures=True)
    return Battery([first, *rest], True, None, (time.monotonic() - started) * 1000)
