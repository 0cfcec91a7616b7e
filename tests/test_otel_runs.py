"""A run as one OpenTelemetry trace (docs/runs.md, docs/otel.md "Runs"): the run's root span is
its first call's, its ids derived from the run's id alone; each later call a child span of it.
In the exporter with the SDK's in-memory exporter, and through the proxy: the openai SDK's
two-turn tool loop, its spans in a loopback OTLP receiver."""

from __future__ import annotations

import time

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from app.otel.exporter import OtlpExporter
from app.otel.model import run_parent

from .proxy_helpers import proxy_server
from .test_otel import Receiver, job


def test_a_runs_ids_come_from_its_id_alone():
    one, again, other = run_parent("run-1"), run_parent("run-1", root=True), run_parent("run-2")
    assert (one.trace_id, one.span_id) == (again.trace_id, again.span_id)
    assert (one.trace_id, one.span_id) != (other.trace_id, other.span_id)
    assert 0 < one.trace_id < 1 << 128 and 0 < one.span_id < 1 << 64
    assert one.run == "run-1" and again.root and not one.root


def test_a_run_is_one_trace_its_calls_children_of_its_root():
    spans = InMemorySpanExporter()
    exporter = OtlpExporter(
        "http://127.0.0.1:9", span_exporter=spans, metric_reader=InMemoryMetricReader()
    )
    try:
        assert exporter.submit(job(parent=run_parent("loop", root=True)))
        assert exporter.submit(job(parent=run_parent("loop")))
        assert exporter.submit(job())  # a call of no run: its own trace, random ids
        assert exporter.flush(10)
    finally:
        exporter.shutdown()
    root, second, alone = spans.get_finished_spans()
    ids = run_parent("loop")
    assert root.name == "chat gpt-4o" and root.kind is SpanKind.CLIENT and root.parent is None
    assert (root.context.trace_id, root.context.span_id) == (ids.trace_id, ids.span_id)
    assert root.attributes["streamscope.run.id"] == "loop"
    assert second.context.trace_id == ids.trace_id
    assert second.parent is not None and second.parent.span_id == ids.span_id
    assert second.context.span_id != ids.span_id
    assert second.attributes["streamscope.run.id"] == "loop"
    assert alone.parent is None and alone.context.trace_id != ids.trace_id
    assert "streamscope.run.id" not in alone.attributes


@pytest.mark.integration
def test_the_openai_sdk_tool_loop_is_one_trace_in_the_receiver(tmp_path, fake):
    from .test_proxy_runs import openai_loop, settled

    receiver = Receiver()
    server = proxy_server(tmp_path, fake, env={"STREAMSCOPE_OTLP_ENDPOINT": receiver.url}).start()
    try:
        openai_loop(server)
        first, _ = settled(server, 2)
        deadline = time.monotonic() + 15
        while True:
            spans = [
                span
                for path, _, body in list(receiver.requests)
                if path == "/v1/traces"
                for span in _spans(body)
            ]
            if len(spans) >= 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    finally:
        server.stop()
        receiver.stop()
    ids = run_parent(first["run"])
    assert len(spans) == 2 and all(span.name == "chat conform" for span in spans)
    (root,) = [span for span in spans if span.parent_span_id == b""]
    (child,) = [span for span in spans if span.parent_span_id != b""]
    assert int.from_bytes(root.trace_id, "big") == ids.trace_id
    assert int.from_bytes(root.span_id, "big") == ids.span_id
    assert child.trace_id == root.trace_id and child.parent_span_id == root.span_id
    share = {a.key: a.value.string_value for a in root.attributes}["streamscope.share_url"]
    assert share.endswith(f"/c/{first['recording']}")  # the root is the run's first call
    for span in spans:
        assert {a.key: a.value.string_value for a in span.attributes}[
            "streamscope.run.id"
        ] == first["run"]


def _spans(body: bytes) -> list:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    return [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
