"""OpenTelemetry export (docs/otel.md): what a span and its metric points say, from hand-made
timed captures (app/otel/model.py); the exporter with the SDK's in-memory reader and exporter
and with a receiver that is down or never answers (app/otel/exporter.py); the settings."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from app.captures import Limits
from app.captures.ingest import ingest
from app.captures.timed import end_line, header_line, read_line, response_line
from app.cli import main
from app.domain.metrics import compute
from app.live.redact import Redactor
from app.otel.exporter import BATCH, OtlpExporter, parse_headers, signal_url
from app.otel.job import Job
from app.otel.model import (
    DURATION,
    SCHEMA_URL,
    TIME_PER_OUTPUT_CHUNK,
    TIME_TO_FIRST_CHUNK,
    TOKEN_USAGE,
    Parent,
    call_span,
    provider,
)
from app.settings import load

from .live_server import free_port

CREATED = "2026-05-04T10:20:30.125Z"
SUBMITTED = 200  # calls handed to an exporter whose receiver never answers
KEY = "sk-proj-otelcanary1234567890abcdefABCDEF"  # key-shaped: the sweep catches it


def chunk(payload: dict | str) -> str:
    return f"data: {payload if isinstance(payload, str) else json.dumps(payload)}\n\n"


def delta(text: str, finish: str | None = None, model: str = "gpt-4o-2024-08-06") -> dict:
    return {
        "id": "chatcmpl-otel1",
        "object": "chat.completion.chunk",
        "model": model,
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }


USAGE = {
    "id": "chatcmpl-otel1",
    "object": "chat.completion.chunk",
    "model": "gpt-4o-2024-08-06",
    "choices": [],
    "usage": {
        "prompt_tokens": 21,
        "completion_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 16},
        "completion_tokens_details": {"reasoning_tokens": 3},
    },
}


def timed(
    reads: list[tuple[float, str]],
    *,
    url: str = "https://api.openai.com/v1/chat/completions",
    request: dict | None = None,
    end: tuple[float, str] | None = None,
    content_type: str = "text/event-stream",
):
    data = header_line(
        created=CREATED,
        source={"url": url, "kind": "proxy"},
        request=request
        if request is not None
        else {"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
    )
    data += response_line(50.0, 200, content_type)
    for t, text in reads:
        data += read_line(t, text.encode())
    if end is not None:
        data += end_line(*end)
    capture = ingest(data, "timed", Limits(), store=False).capture
    return capture.header, capture.streams[0]


WHOLE = [
    (120.0, chunk(delta("Hel"))),
    (170.5, chunk(delta("lo"))),
    (230.25, chunk(delta("!", "stop"))),
    (240.0, chunk(USAGE)),
    (241.0, chunk("[DONE]")),
]


def test_a_whole_chat_stream_as_a_genai_span():
    header, stream = timed(WHOLE, end=(245.0, "done"))
    metrics = compute(stream)
    span = call_span(
        header, stream, metrics, share_url="http://h:5000/c/abc", capture_id="abc", ended_ms=245.0
    )
    a = span.attributes
    assert span.name == "chat gpt-4o"
    assert a["gen_ai.operation.name"] == "chat"
    assert a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == "gpt-4o"
    assert a["gen_ai.response.model"] == "gpt-4o-2024-08-06"
    assert a["gen_ai.response.id"] == "chatcmpl-otel1"
    assert a["gen_ai.response.finish_reasons"] == ("stop",)
    assert a["gen_ai.request.stream"] is True
    assert a["gen_ai.usage.input_tokens"] == 21
    assert a["gen_ai.usage.output_tokens"] == 7
    assert a["gen_ai.usage.reasoning.output_tokens"] == 3
    assert a["gen_ai.usage.cache_read.input_tokens"] == 16
    assert metrics.ttft_ms == 120.0
    assert a["gen_ai.response.time_to_first_chunk"] == pytest.approx(0.120)
    assert a["server.address"] == "api.openai.com" and a["server.port"] == 443
    assert a["streamscope.share_url"] == "http://h:5000/c/abc"
    assert a["streamscope.capture.id"] == "abc"
    assert "error.type" not in a and span.error_type is None
    start = datetime.fromisoformat(CREATED.replace("Z", "+00:00")).timestamp()
    assert span.start_ns == round(start * 1e9)
    assert span.end_ns - span.start_ns == 245_000_000
    # content is off by default
    assert "gen_ai.input.messages" not in a and "gen_ai.output.messages" not in a


def test_the_metric_points_are_the_streams_own_numbers():
    header, stream = timed(WHOLE, end=(245.0, "done"))
    metrics = compute(stream)
    span = call_span(header, stream, metrics, ended_ms=245.0)
    by = {}
    for point in span.points:
        by.setdefault(point.instrument, []).append(point)
    assert [p.value for p in by[DURATION]] == [pytest.approx(0.245)]
    assert [p.value for p in by[TIME_TO_FIRST_CHUNK]] == [pytest.approx(0.120)]
    assert [p.value for p in by[TIME_PER_OUTPUT_CHUNK]] == pytest.approx(
        [g / 1000 for g in metrics.itl_ms]
    )
    assert metrics.itl_ms == [50.5, 59.75]
    tokens = {p.attributes["gen_ai.token.type"]: p.value for p in by[TOKEN_USAGE]}
    assert tokens == {"input": 21, "output": 7}
    for point in span.points:
        assert point.attributes["gen_ai.operation.name"] == "chat"
        assert point.attributes["gen_ai.provider.name"] == "openai"
        assert point.attributes["gen_ai.request.model"] == "gpt-4o"


def test_a_stream_cut_before_its_final_event_finishes_with_error():
    cut = WHOLE[:2]  # no finish reason, no [DONE]
    header, stream = timed(cut, end=(200.0, "done"))
    span = call_span(header, stream, compute(stream))
    assert span.attributes["gen_ai.response.finish_reasons"] == ("error",)
    assert span.error_type == "stream_truncated"
    assert span.attributes["error.type"] == "stream_truncated"
    # The end, when not given, is the last read.
    assert span.end_ns - span.start_ns == 170_500_000


def test_finished_choices_without_done_are_not_cut():
    header, stream = timed(WHOLE[:3], end=(231.0, "done"))
    span = call_span(header, stream, compute(stream))
    assert span.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert span.error_type is None


def test_an_anthropic_stream_without_message_stop_is_cut_and_counts_cached_input():
    url = "https://api.anthropic.com/v1/messages"
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_otel",
            "model": "claude-sonnet-4-5",
            "usage": {
                "input_tokens": 4,
                "cache_read_input_tokens": 100,
                "cache_creation_input_tokens": 10,
                "output_tokens": 1,
            },
        },
    }
    events = [
        (100.0, f"event: message_start\ndata: {json.dumps(start)}\n\n"),
        (
            110.0,
            'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        ),
        (
            130.0,
            'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
        ),
    ]
    finish = [
        (
            140.0,
            'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}\n\n',
        ),
        (141.0, 'event: message_stop\ndata: {"type":"message_stop"}\n\n'),
    ]
    request = {"model": "claude-sonnet-4-5", "stream": True, "messages": []}
    header, whole = timed(events + finish, url=url, request=request, end=(142.0, "done"))
    span = call_span(header, whole, compute(whole))
    a = span.attributes
    assert span.name == "chat claude-sonnet-4-5"
    assert a["gen_ai.provider.name"] == "anthropic"
    assert a["gen_ai.response.finish_reasons"] == ("end_turn",)
    assert a["gen_ai.usage.input_tokens"] == 4 + 100 + 10  # the conventions count cached input
    assert a["gen_ai.usage.cache_read.input_tokens"] == 100
    assert a["gen_ai.usage.output_tokens"] == 5
    header, cut = timed(events, url=url, request=request, end=(131.0, "done"))
    span = call_span(header, cut, compute(cut))
    assert span.attributes["gen_ai.response.finish_reasons"] == ("error",)
    assert span.error_type == "stream_truncated"


def test_an_upstream_error_answer_is_its_status():
    header, stream = timed(
        [(80.0, '{"error":{"message":"boom"}}')],
        end=(81.0, "error", "HTTP 500 from upstream: boom"),
    )
    span = call_span(header, stream, compute(stream))
    assert span.error_type == "500"
    assert span.attributes["gen_ai.response.finish_reasons"] == ("error",)
    assert "HTTP 500" in (span.error_message or "")


def test_content_only_when_asked_and_scrubbed():
    request = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": f"my key is {KEY}"},
        ],
    }
    reads = [(120.0, chunk(delta(f"you said {KEY}", "stop"))), (121.0, chunk("[DONE]"))]
    header, stream = timed(reads, request=request, end=(122.0, "done"))
    off = call_span(header, stream, compute(stream))
    assert not any(k in off.attributes for k in ("gen_ai.input.messages", "gen_ai.output.messages"))
    scrub = Redactor([]).text
    on = call_span(header, stream, compute(stream), content=True, scrub=scrub)
    given = json.loads(on.attributes["gen_ai.input.messages"])
    answered = json.loads(on.attributes["gen_ai.output.messages"])
    assert [m["role"] for m in given] == ["system", "user"]
    assert given[0]["parts"] == [{"type": "text", "content": "be brief"}]
    assert answered[0]["role"] == "assistant" and answered[0]["finish_reason"] == "stop"
    text = on.attributes["gen_ai.input.messages"] + on.attributes["gen_ai.output.messages"]
    assert KEY not in text
    assert "you said" in answered[0]["parts"][0]["content"]
    assert "my key is" in given[1]["parts"][0]["content"]


def test_providers_by_host_then_dialect():
    assert provider("https://generativelanguage.googleapis.com/v1beta/x", "gemini") == "gcp.gemini"
    assert provider("https://x.openai.azure.com/openai", "chat-completions") == "azure.ai.openai"
    assert provider("https://api.groq.com/openai/v1", "chat-completions") == "groq"
    assert provider("http://127.0.0.1:8000/v1", "anthropic-messages") == "anthropic"
    assert provider("http://127.0.0.1:8000/v1", "ollama") == "ollama"
    assert provider("http://127.0.0.1:8000/v1", "chat-completions") == "openai"
    assert provider("https://bedrock-runtime.us-east-1.amazonaws.com", "bedrock-converse") == (
        "aws.bedrock"
    )


def test_gemini_model_comes_from_the_path():
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    body = {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
    header, stream = timed([(90.0, chunk(body))], url=url, request={"contents": []})
    span = call_span(header, stream, compute(stream))
    assert span.name == "generate_content gemini-2.5-flash"
    assert span.attributes["gen_ai.provider.name"] == "gcp.gemini"


def test_headers_and_endpoint_settings():
    assert parse_headers("Authorization=Bearer%20abc, x-team = blue ,junk,=v") == {
        "authorization": "Bearer abc",
        "x-team": "blue",
    }
    with pytest.raises(ValueError) as too_many:
        parse_headers(",".join(f"k{i}=secretvalue" for i in range(40)))
    assert "secretvalue" not in str(too_many.value)
    assert signal_url("http://127.0.0.1:4318", "traces") == "http://127.0.0.1:4318/v1/traces"
    assert signal_url("http://c:4318/v1/traces/", "metrics") == "http://c:4318/v1/metrics"
    with pytest.raises(ValueError):
        signal_url("file:///etc/passwd", "traces")
    settings = load(
        environ={
            "STREAMSCOPE_OTLP_ENDPOINT": "http://127.0.0.1:4318",
            "STREAMSCOPE_OTLP_HEADERS": "a=b",
            "STREAMSCOPE_OTLP_CONTENT": "1",
        }
    )
    assert (settings.otlp_endpoint, settings.otlp_headers, settings.otlp_content) == (
        "http://127.0.0.1:4318",
        "a=b",
        True,
    )
    assert load(environ={}).otlp_content is False


def job(**changes) -> Job:
    header, stream = timed(WHOLE, end=(245.0, "done"))
    return Job(header, stream, capture_id="cap1", share_url="/c/cap1", ended_ms=245.0, **changes)


def test_the_exporter_sends_sdk_spans_and_records_the_metrics():
    spans = InMemorySpanExporter()
    reader = InMemoryMetricReader()
    exporter = OtlpExporter(
        "http://127.0.0.1:9", span_exporter=spans, metric_reader=reader, queue_size=4
    )
    try:
        parent = Parent(trace_id=0x1234, span_id=0x5678)
        assert exporter.submit(job())
        assert exporter.submit(job(parent=parent))
        assert exporter.flush(10)
        assert (exporter.exported, exporter.dropped) == (2, 0)
        first, child = spans.get_finished_spans()
        assert first.name == "chat gpt-4o" and first.kind is SpanKind.CLIENT
        assert first.parent is None  # its own trace
        assert child.parent is not None and child.parent.span_id == 0x5678
        assert child.context.trace_id == 0x1234
        assert first.instrumentation_scope.schema_url == SCHEMA_URL
        assert first.attributes["gen_ai.response.time_to_first_chunk"] == pytest.approx(0.12)
        assert first.attributes["gen_ai.response.finish_reasons"] == ("stop",)
        assert first.end_time - first.start_time == 245_000_000
        assert first.status.status_code is StatusCode.UNSET
        assert first.resource.attributes["service.name"] == "streamscope"
        data = reader.get_metrics_data()
        metrics = {
            m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
        }
        assert set(metrics) == {DURATION, TIME_TO_FIRST_CHUNK, TIME_PER_OUTPUT_CHUNK, TOKEN_USAGE}
        ttft = metrics[TIME_TO_FIRST_CHUNK]
        assert ttft.unit == "s"
        (point,) = ttft.data.data_points
        assert point.count == 2 and point.sum == pytest.approx(0.24)
        assert point.explicit_bounds[0] == 0.01
        usage = {
            p.attributes["gen_ai.token.type"]: p.sum for p in metrics[TOKEN_USAGE].data.data_points
        }
        assert usage == {"input": 42, "output": 14}
        assert metrics[TIME_PER_OUTPUT_CHUNK].data.data_points[0].count == 4
    finally:
        exporter.shutdown()


def test_a_receiver_that_is_down_drops_counts_and_says_so(caplog):
    closed = free_port()  # nothing listens there
    exporter = OtlpExporter(
        f"http://127.0.0.1:{closed}", metric_reader=InMemoryMetricReader(), timeout=1
    )
    try:
        with caplog.at_level(logging.WARNING, logger="streamscope.otel"):
            started = time.perf_counter()
            assert exporter.submit(job())
            assert time.perf_counter() - started < 0.05  # handed over, not sent
            assert exporter.flush(10)
        assert (exporter.exported, exporter.dropped) == (0, 1)
        said = [r.getMessage() for r in caplog.records if r.name == "streamscope.otel"]
        assert len(said) == 1 and "1 span(s) dropped" in said[0], said
    finally:
        exporter.shutdown()


def test_a_receiver_that_never_answers_fills_the_queue_and_submit_never_waits(caplog):
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        headers = {"authorization": "Bearer otlp-header-canary-77aa"}
        exporter = OtlpExporter(
            f"http://127.0.0.1:{port}",
            headers,
            metric_reader=InMemoryMetricReader(),
            queue_size=2,
            timeout=1,
        )
        try:
            with caplog.at_level(logging.DEBUG):
                one = job()
                took = []
                results = []
                for _ in range(SUBMITTED):
                    started = time.perf_counter()
                    results.append(exporter.submit(one))
                    took.append(time.perf_counter() - started)
                assert max(took) < 0.05, max(took)
                # The worker holds one batch (it waits on the receiver), the queue two more.
                assert results.count(True) <= BATCH + 2, results.count(True)
                assert exporter.flush(15)
            assert exporter.exported == 0 and exporter.dropped == SUBMITTED
            assert "otlp-header-canary-77aa" not in caplog.text
        finally:
            exporter.shutdown()


def test_spans_the_sampler_leaves_out_are_neither_sent_nor_dropped(monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    spans = InMemorySpanExporter()
    exporter = OtlpExporter(
        "http://127.0.0.1:9", span_exporter=spans, metric_reader=InMemoryMetricReader()
    )
    try:
        assert exporter.submit(job())
        assert exporter.flush(10)
        assert (exporter.exported, exporter.dropped) == (0, 0)
        assert spans.get_finished_spans() == ()
    finally:
        exporter.shutdown()


class Receiver:
    """A loopback OTLP/HTTP receiver: keeps each request's path, headers and body, answers 200."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        kept = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                kept.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_spans_and_metrics_go_out_as_otlp_protobuf_with_the_headers():
    receiver = Receiver()
    exporter = OtlpExporter(
        receiver.url, parse_headers("Authorization=Bearer%20otlp-canary-9d1e,x-team=blue")
    )
    try:
        assert exporter.submit(job())
        assert exporter.flush(10)
        assert exporter.exported == 1
    finally:
        exporter.shutdown()
        receiver.stop()
    by_path = {path: (headers, body) for path, headers, body in receiver.requests}
    assert set(by_path) == {"/v1/traces", "/v1/metrics"}
    for headers, _ in by_path.values():
        assert headers["authorization"] == "Bearer otlp-canary-9d1e"
        assert headers["x-team"] == "blue"
        assert headers["content-type"] == "application/x-protobuf"
    traces = ExportTraceServiceRequest()
    traces.ParseFromString(by_path["/v1/traces"][1])
    (resource,) = traces.resource_spans
    (scope,) = resource.scope_spans
    assert scope.schema_url == SCHEMA_URL
    (span,) = scope.spans
    assert span.name == "chat gpt-4o"
    attributes = {a.key: a.value for a in span.attributes}
    assert attributes["gen_ai.response.time_to_first_chunk"].double_value == pytest.approx(0.12)
    assert attributes["gen_ai.usage.output_tokens"].int_value == 7
    assert [
        v.string_value for v in attributes["gen_ai.response.finish_reasons"].array_value.values
    ] == ["stop"]
    assert span.end_time_unix_nano - span.start_time_unix_nano == 245_000_000
    metrics = ExportMetricsServiceRequest()
    metrics.ParseFromString(by_path["/v1/metrics"][1])
    names = {
        m.name: m for rm in metrics.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
    }
    assert set(names) == {DURATION, TIME_TO_FIRST_CHUNK, TIME_PER_OUTPUT_CHUNK, TOKEN_USAGE}
    (ttft,) = names[TIME_TO_FIRST_CHUNK].histogram.data_points
    assert ttft.count == 1 and ttft.sum == pytest.approx(0.12)


def test_export_otlp_on_the_command_line(tmp_path, capsys):
    header, _ = timed(WHOLE, end=(245.0, "done"))
    path = tmp_path / "call.timed.jsonl"
    data = header_line(created=CREATED, source=header["source"], request=header["request"])
    data += b"".join(read_line(t, text.encode()) for t, text in WHOLE)
    path.write_bytes(data)
    receiver = Receiver()
    try:
        assert main(["export", str(path), "--otlp", receiver.url]) == 0
    finally:
        receiver.stop()
    assert "sent 1 span(s) of call.timed.jsonl" in capsys.readouterr().out
    assert [p for p, _, _ in receiver.requests] == ["/v1/traces"]  # spans only, no metrics
    traces = ExportTraceServiceRequest()
    traces.ParseFromString(receiver.requests[0][2])
    (span,) = traces.resource_spans[0].scope_spans[0].spans
    attributes = {a.key: a.value for a in span.attributes}
    assert attributes["streamscope.capture.file"].string_value == "call.timed.jsonl"
    assert attributes["gen_ai.response.time_to_first_chunk"].double_value == pytest.approx(0.12)
    # A receiver that is down: said, exit 1; no file: exit 2; neither -o nor --otlp: exit 2.
    assert main(["export", str(path), "--otlp", f"http://127.0.0.1:{free_port()}"]) == 1
    assert "1 dropped" in capsys.readouterr().out
    assert main(["export", str(tmp_path / "none.sse"), "--otlp", "http://127.0.0.1:9"]) == 2
    assert main(["export", str(path)]) == 2
    assert "-o FILE (or --otlp URL)" in capsys.readouterr().err


def test_a_call_that_did_not_stream_has_no_stream_flag_and_no_chunk_timings():
    whole = {
        "id": "chatcmpl-whole",
        "object": "chat.completion",
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    request = {"model": "gpt-4o", "messages": []}  # no "stream": the API's default, whole
    header, stream = timed(
        [(300.0, json.dumps(whole))],
        request=request,
        end=(301.0, "done"),
        content_type="application/json",
    )
    assert stream.container == "json"
    span = call_span(header, stream, compute(stream))
    assert "gen_ai.request.stream" not in span.attributes
    assert "gen_ai.response.time_to_first_chunk" not in span.attributes
    kinds = {p.instrument for p in span.points}
    assert kinds == {DURATION, TOKEN_USAGE}
    assert span.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    # The same answer asked for with "stream": false, and a streamed one with "stream": true.
    header, stream = timed(WHOLE, request={"model": "m", "stream": False}, end=(245.0, "done"))
    assert "gen_ai.request.stream" not in call_span(header, stream, compute(stream)).attributes
