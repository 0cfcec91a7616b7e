"""The OTLP adapter (docs/otel.md): finished calls in, OpenTelemetry spans and GenAI client
metrics out over OTLP/HTTP (protobuf), never in a call's way.

``submit`` is all a proxied call or a live run does: a ``put_nowait`` on a bounded queue
(``QUEUE_SIZE`` calls). A full queue drops the call's span, counts it (``dropped``) and says
so in one log line (then at most one every ``DROP_LOG_S``). One worker thread takes the calls
in batches, works out each span with ``model.call_span`` (the metrics computed there, off the
call's thread), ends it in the SDK and sends the batch with the SDK's ``OTLPSpanExporter``
(``EXPORT_TIMEOUT_S`` per request, ``MAX_REQUEST_BYTES`` at most); a batch the receiver did not
take (down, refusing, too slow) is dropped and counted the same way. Metrics go through the
SDK's ``MeterProvider`` to ``<endpoint>/v1/metrics`` every ``METRICS_INTERVAL_S``.

The headers (``STREAMSCOPE_OTLP_HEADERS``) are secrets: they go on the export requests and
nowhere else, never in a log line or an error (``describe`` names the endpoint alone).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags
from opentelemetry.trace.status import Status, StatusCode

from ..domain.metrics import compute
from ..version import __version__
from .job import Job
from .model import INSTRUMENTS, SCHEMA_URL, CallSpan, call_span

log = logging.getLogger("streamscope.otel")
# The SDK's span exporter logs every batch it could not send; ``_done`` says it once instead
# (then at most once a minute), with the count.
logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter").setLevel(
    logging.CRITICAL
)
QUEUE_SIZE = 256  # finished calls waiting for the worker
BATCH = 64  # calls sent in one export request at most
EXPORT_TIMEOUT_S = 5.0
MAX_REQUEST_BYTES = 4 * 1024 * 1024
METRICS_INTERVAL_S = 30.0
DROP_LOG_S = 60.0
MAX_HEADERS = 32
MAX_HEADERS_CHARS = 8192


def parse_headers(text: str) -> dict[str, str]:
    """``STREAMSCOPE_OTLP_HEADERS`` as ``OTEL_EXPORTER_OTLP_HEADERS`` spells them: ``k=v,k2=v2``,
    each key and value URL-decoded; an entry without ``=`` or a key is left out. Raises
    ValueError (naming no value) when there are too many or they are too long."""
    if len(text) > MAX_HEADERS_CHARS:
        raise ValueError(f"STREAMSCOPE_OTLP_HEADERS is longer than {MAX_HEADERS_CHARS} characters")
    out: dict[str, str] = {}
    for entry in text.split(","):
        key, sep, value = entry.partition("=")
        key = unquote(key).strip().lower()
        if not sep or not key:
            continue
        out[key] = unquote(value).strip()
    if len(out) > MAX_HEADERS:
        raise ValueError(f"STREAMSCOPE_OTLP_HEADERS names more than {MAX_HEADERS} headers")
    return out


def signal_url(endpoint: str, signal: str) -> str:
    """The URL of one signal (``traces``, ``metrics``) under ``STREAMSCOPE_OTLP_ENDPOINT``, a
    base URL as ``OTEL_EXPORTER_OTLP_ENDPOINT`` is (one that already ends in ``/v1/traces``
    is taken as its base)."""
    base = endpoint.strip().rstrip("/")
    for known in ("/v1/traces", "/v1/metrics"):
        if base.endswith(known):
            base = base[: -len(known)]
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("STREAMSCOPE_OTLP_ENDPOINT must be an http:// or https:// URL")
    return f"{base}/v1/{signal}"


class _Collected(SpanProcessor):
    """Ended spans, kept for the worker's next export request (the worker's thread alone
    makes and takes them)."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


class _Ids(RandomIdGenerator):
    """Random ids, except for a run's root span (its first call's): its ids are the run's
    (``run_parent``), so every process hangs the run's later calls on it. Only the export
    thread makes spans."""

    def __init__(self) -> None:
        self.forced: tuple[int, int] | None = None  # (trace id, span id) of the next span

    def generate_trace_id(self) -> int:
        return self.forced[0] if self.forced is not None else super().generate_trace_id()

    def generate_span_id(self) -> int:
        return self.forced[1] if self.forced is not None else super().generate_span_id()


class OtlpExporter:
    def __init__(
        self,
        endpoint: str,
        headers: Mapping[str, str] | None = None,
        *,
        content: bool = False,
        span_exporter: SpanExporter | None = None,
        metric_reader: MetricReader | None = None,
        metrics: bool = True,
        queue_size: int = QUEUE_SIZE,
        timeout: float = EXPORT_TIMEOUT_S,
    ) -> None:
        self.endpoint = endpoint
        self.content = content
        self.dropped = 0  # spans lost: queue full, or the receiver did not take them
        self.exported = 0
        self._headers = dict(headers or {})
        self._queue: queue.Queue[Job] = queue.Queue(maxsize=queue_size)
        self._lock = threading.Lock()
        self._pending = 0  # submitted and not yet sent (or dropped)
        self._idle = threading.Condition(self._lock)
        self._logged_drop = -DROP_LOG_S
        self._closed = False
        resource = Resource.create({"service.name": "streamscope", "service.version": __version__})
        self._collected = _Collected()
        self._ids = _Ids()
        self._tracers = TracerProvider(resource=resource, id_generator=self._ids)
        self._tracers.add_span_processor(self._collected)
        self._tracer = self._tracers.get_tracer("streamscope", __version__, schema_url=SCHEMA_URL)
        self._spans = span_exporter or OTLPSpanExporter(
            endpoint=signal_url(endpoint, "traces"),
            headers=self._headers,
            timeout=timeout,
            max_request_size=MAX_REQUEST_BYTES,
        )
        readers: list[MetricReader] = []
        if metric_reader is not None:
            readers.append(metric_reader)
        elif metrics:
            exporter = OTLPMetricExporter(
                endpoint=signal_url(endpoint, "metrics"), headers=self._headers, timeout=timeout
            )
            readers.append(
                PeriodicExportingMetricReader(
                    exporter,
                    export_interval_millis=METRICS_INTERVAL_S * 1000,
                    export_timeout_millis=timeout * 1000,
                )
            )
        self._meters = MeterProvider(metric_readers=readers, resource=resource)
        meter = self._meters.get_meter("streamscope", __version__, schema_url=SCHEMA_URL)
        self._histograms = {
            name: meter.create_histogram(
                name, unit, description, explicit_bucket_boundaries_advisory=list(buckets)
            )
            for name, (unit, description, buckets) in INSTRUMENTS.items()
        }
        self._thread = threading.Thread(target=self._run, name="otlp-export", daemon=True)
        self._thread.start()

    def describe(self) -> str:
        """The exporter in words for a log line: the endpoint, never the headers."""
        return f"OTLP/HTTP to {self.endpoint}"

    # ------------------------------------------------------------------ the calls' side
    def submit(self, job: Job) -> bool:
        """Hand a finished call over without waiting; False when its span was dropped."""
        with self._lock:
            if self._closed:
                return False
            self._pending += 1
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            self._done(1, 0, 1, "the export queue is full")
            return False
        return True

    # ------------------------------------------------------------------ the worker
    def _run(self) -> None:
        while True:
            first = self._queue.get()
            jobs = [first]
            while len(jobs) < BATCH:
                try:
                    jobs.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._send(jobs)

    def _send(self, jobs: list[Job]) -> None:
        made = 0
        for job in jobs:
            try:
                self._record(self._span_of(job))
                made += 1
            except Exception:
                log.exception("a call's span could not be made; it is dropped")
        spans, self._collected.spans = self._collected.spans, []
        failed = len(jobs) - made
        try:
            ok = bool(spans) and self._spans.export(spans) == SpanExportResult.SUCCESS
        except Exception:
            log.exception("exporting spans failed")
            ok = False
        # A span the sampler (OTEL_TRACES_SAMPLER) left out is neither sent nor dropped.
        if spans and not ok:
            why = f"the receiver at {self.endpoint} did not take them"
            self._done(len(jobs), 0, failed + len(spans), why)
        else:
            self._done(len(jobs), len(spans), failed, "they could not be made")

    def _span_of(self, job: Job) -> CallSpan:
        metrics = compute(job.stream, job.stall_ms)
        return call_span(
            job.header,
            job.stream,
            metrics,
            share_url=job.share_url,
            capture_id=job.capture_id,
            content=self.content,
            scrub=job.scrub,
            ended_ms=job.ended_ms,
            now=job.now,
            parent=job.parent,
            file=job.file,
        )

    def _record(self, made: CallSpan) -> None:
        context = Context()
        root = made.parent is not None and made.parent.root
        if root:  # a run's first call: the run's root span, with the run's ids (docs/runs.md)
            assert made.parent is not None
            self._ids.forced = (made.parent.trace_id, made.parent.span_id)
        elif made.parent is not None:
            parent = SpanContext(
                made.parent.trace_id,
                made.parent.span_id,
                is_remote=True,
                trace_flags=TraceFlags(TraceFlags.SAMPLED),
            )
            context = trace.set_span_in_context(NonRecordingSpan(parent), context)
        try:
            span = self._tracer.start_span(
                made.name,
                context=context,
                kind=SpanKind.CLIENT,
                attributes=dict(made.attributes),
                start_time=made.start_ns,
            )
        finally:
            self._ids.forced = None
        if made.error_type is not None:
            span.set_status(Status(StatusCode.ERROR, made.error_message))
        span.end(end_time=made.end_ns)
        for point in made.points:
            self._histograms[point.instrument].record(point.value, dict(point.attributes))

    def _done(self, calls: int, sent: int, dropped: int, why: str) -> None:
        """Count what became of ``calls`` submitted calls (``sent`` spans taken, ``dropped``
        lost), say a drop (then at most once every ``DROP_LOG_S``), and only then let
        ``flush`` see them done."""
        with self._lock:
            self.exported += sent
            self.dropped += dropped
            total = self.dropped
            now = time.monotonic()
            say = dropped > 0 and now - self._logged_drop >= DROP_LOG_S
            if say:
                self._logged_drop = now
        if say:
            log.warning(
                "otlp: %d span(s) dropped (%s); %d dropped since start; calls go on",
                dropped,
                why,
                total,
            )
        with self._lock:
            self._pending -= calls
            self._idle.notify_all()

    # ------------------------------------------------------------------ tests, and a stop
    def flush(self, timeout: float = 30.0) -> bool:
        """Until every span submitted so far is sent or dropped, and the metrics pushed."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return self._meters.force_flush(int(max(0.0, deadline - time.monotonic()) * 1000))

    def shutdown(self, timeout: float = 10.0) -> None:
        self.flush(timeout)
        with self._lock:
            self._closed = True
        self._meters.shutdown(timeout_millis=timeout * 1000)
        self._spans.shutdown()
        self._tracers.shutdown()


def exporter_of(settings: Any, **options: Any) -> OtlpExporter | None:
    """The exporter ``STREAMSCOPE_OTLP_*`` ask for, or None when there is no endpoint."""
    if not settings.otlp_endpoint:
        return None
    return OtlpExporter(
        settings.otlp_endpoint,
        parse_headers(settings.otlp_headers),
        content=settings.otlp_content,
        **options,
    )
