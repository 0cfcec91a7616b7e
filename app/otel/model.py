"""What one stream says as an OpenTelemetry span and as GenAI client metric points, by the
GenAI semantic conventions ``SEMCONV_VERSION`` (docs/otel.md, "What is exported").

A pure function of a capture's header (when it was made, where it went, the scrubbed request)
and one stream with its metrics (``app/domain/metrics.py``): nothing is measured again here.
The span starts when the request was sent (the header's ``created``) and ends when the stream
ended (the last read, or the recorded end when the caller knows it); TTFT is Streamscope's own.
Nothing here imports OpenTelemetry: the exporter (``exporter.py``) turns a ``CallSpan`` into an
SDK span, and ``points`` into histogram records.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from ..domain.events import Finish, StreamError
from ..domain.metrics import Metrics
from ..domain.normalize import normalized
from ..domain.stream import Stream
from ..domain.summary import dialect_of, fold, identity

# The GenAI conventions followed (Development status): the last release of
# open-telemetry/semantic-conventions that still held docs/gen-ai/ (v1.41.1 has the same GenAI
# text as v1.41.0; from v1.42.0 on they moved to semantic-conventions-genai), and its schema.
SEMCONV_VERSION = "1.41.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
CONTENT_CAP = 16 * 1024  # characters of prompt or completion content on one attribute
TEXT_CAP = 256  # characters of an identifier (model, response id, error type)
MAX_FINISH_REASONS = 64  # entries of gen_ai.response.finish_reasons
MAX_CHUNK_GAPS = 10_000  # time_per_output_chunk points of one call

# Metric names (gen-ai-metrics.md) and their bucket boundaries as the conventions advise.
DURATION = "gen_ai.client.operation.duration"
TIME_TO_FIRST_CHUNK = "gen_ai.client.operation.time_to_first_chunk"
TIME_PER_OUTPUT_CHUNK = "gen_ai.client.operation.time_per_output_chunk"
TOKEN_USAGE = "gen_ai.client.token.usage"
SECONDS_BUCKETS = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
TOKEN_BUCKETS = (
    1,
    4,
    16,
    64,
    256,
    1024,
    4096,
    16384,
    65536,
    262144,
    1048576,
    4194304,
    16777216,
    67108864,
)
INSTRUMENTS: dict[str, tuple[str, str, tuple[float, ...]]] = {
    DURATION: ("s", "GenAI operation duration.", SECONDS_BUCKETS),
    TIME_TO_FIRST_CHUNK: ("s", "Time to receive the first chunk.", SECONDS_BUCKETS),
    TIME_PER_OUTPUT_CHUNK: ("s", "Time per output chunk after the first.", SECONDS_BUCKETS),
    TOKEN_USAGE: ("{token}", "Number of input and output tokens used.", TOKEN_BUCKETS),
}

# gen_ai.operation.name by Streamscope's dialect (docs/dialects.md); "chat" for the rest.
OPERATIONS = {"completions": "text_completion", "gemini": "generate_content"}
# gen_ai.provider.name's well-known values, by the host a call went to (the conventions: "as
# identified by the instrumentation's best knowledge"), then by the dialect; an OpenAI-shaped
# dialect on any other host is reported as "openai", as OpenAI's own instrumentations do.
HOSTS = (
    ("generativelanguage.googleapis.com", "gcp.gemini"),
    ("aiplatform.googleapis.com", "gcp.vertex_ai"),
    ("openai.azure.com", "azure.ai.openai"),
    ("models.ai.azure.com", "azure.ai.inference"),
    ("api.openai.com", "openai"),
    ("anthropic.com", "anthropic"),
    ("amazonaws.com", "aws.bedrock"),
    ("api.groq.com", "groq"),
    ("api.deepseek.com", "deepseek"),
    ("api.mistral.ai", "mistral_ai"),
    ("api.x.ai", "x_ai"),
    ("api.perplexity.ai", "perplexity"),
    ("cohere.com", "cohere"),
    ("cohere.ai", "cohere"),
)
DIALECT_PROVIDERS = {
    "anthropic-messages": "anthropic",
    "gemini": "gcp.gemini",
    "bedrock-converse": "aws.bedrock",
    "cohere": "cohere",
    "ollama": "ollama",
}
GEMINI_MODEL = re.compile(r"/models/([^/:?]+)")
HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")

AttributeValue = str | bool | int | float | tuple[str, ...]


@dataclass(frozen=True)
class Parent:
    """Where a span hangs in a trace: a run's (docs/runs.md), one trace whose root span is its
    first call's, with the run's ids (``run_parent``), and its later calls child spans of it.
    A call of no run is its own trace."""

    trace_id: int
    span_id: int
    run: str | None = None  # the run's id, when the parent is a run's root span
    root: bool = False  # this call is the run's first: its span is the root, with these ids


def run_parent(run: str, *, root: bool = False) -> Parent:
    """A run's trace and root span ids, derived from the run's id alone (SHA-256 of
    ``streamscope-run:<id>``: 16 bytes the trace id, the next 8 the span id), so every process
    hangs a run's calls on the same trace and span."""
    digest = hashlib.sha256(f"streamscope-run:{run}".encode()).digest()
    trace_id = int.from_bytes(digest[:16], "big") or 1
    span_id = int.from_bytes(digest[16:24], "big") or 1
    return Parent(trace_id, span_id, run, root)


@dataclass(frozen=True)
class Point:
    """One record of a GenAI client metric."""

    instrument: str
    value: float
    attributes: dict[str, AttributeValue]


@dataclass(frozen=True)
class CallSpan:
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, AttributeValue]
    error_type: str | None  # the span's status is an error, with this error.type
    error_message: str | None
    points: tuple[Point, ...]
    parent: Parent | None = None


def call_span(
    header: Mapping[str, Any] | None,
    stream: Stream,
    metrics: Metrics,
    *,
    share_url: str | None = None,
    capture_id: str | None = None,
    content: bool = False,
    scrub: Callable[[str], str] = lambda text: text,
    ended_ms: float | None = None,
    now: float = 0.0,
    parent: Parent | None = None,
    file: str | None = None,
) -> CallSpan:
    """The span of one call: ``header`` is its capture's header (a timed capture's, a live
    run's or a proxied call's), ``metrics`` the stream's (``compute``). ``content`` adds the
    prompt and the completion (``STREAMSCOPE_OTLP_CONTENT``), each through ``scrub`` and capped.
    ``now`` (epoch seconds) is the start when the header says none (an untimed file)."""
    header = header or {}
    source: Mapping[str, Any] = _object(header.get("source"))
    request: Mapping[str, Any] = _object(header.get("request"))
    url = str(source.get("url") or "")
    dialect = dialect_of(stream)
    operation = OPERATIONS.get(dialect.name, "chat")
    request_model = _model(request, url)
    response_id, response_model = identity(stream)
    timeline = fold(stream, with_logprobs=False)
    completion = dialect.assemble(timeline.runs)
    shape = normalized(timeline.runs, dialect, completion)
    truncated = _truncated(stream, timeline.present)

    streaming = is_streaming(request, url, stream)
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider(url, dialect.name),
    }
    if streaming:  # the conventions: set if and only if the request streamed
        attributes["gen_ai.request.stream"] = True
    if request_model:
        attributes["gen_ai.request.model"] = request_model
    if isinstance(response_model, str) and response_model:
        attributes["gen_ai.response.model"] = response_model[:TEXT_CAP]
    if response_id not in (None, ""):
        attributes["gen_ai.response.id"] = str(response_id)[:TEXT_CAP]
    reasons = _finish_reasons(shape["outputs"])
    if truncated:
        reasons = ("error",)
    if reasons:
        attributes["gen_ai.response.finish_reasons"] = reasons
    usage = _usage(shape.get("usage"), dialect.name, dialect.final_usage(completion))
    for key, name in (
        ("input_tokens", "gen_ai.usage.input_tokens"),
        ("output_tokens", "gen_ai.usage.output_tokens"),
        ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
        ("cached_input_tokens", "gen_ai.usage.cache_read.input_tokens"),
    ):
        if usage.get(key) is not None:
            attributes[name] = int(usage[key])  # type: ignore[arg-type]
    if metrics.ttft_ms is not None and streaming:
        attributes["gen_ai.response.time_to_first_chunk"] = metrics.ttft_ms / 1000
    host = urlsplit(url)
    if host.hostname:
        attributes["server.address"] = host.hostname
        port = _port(host)
        if port is not None:
            attributes["server.port"] = port
    if capture_id:
        attributes["streamscope.capture.id"] = capture_id
    if share_url:
        attributes["streamscope.share_url"] = share_url
    if file:
        attributes["streamscope.capture.file"] = file[:TEXT_CAP]
    attributes["streamscope.dialect"] = dialect.name
    if stream.end_reason:
        attributes["streamscope.end_reason"] = stream.end_reason
    attributes["streamscope.timing"] = stream.timing
    error_type = _error_type(stream, truncated, timeline.present)
    if error_type is not None:
        attributes["error.type"] = error_type
    if content:
        attributes.update(_content(request, shape["outputs"], scrub))

    start_ns = _start_ns(header.get("created"), now)
    end_ms = ended_ms if ended_ms is not None else _last_ms(stream, metrics)
    end_ns = start_ns + max(0, round((end_ms or 0.0) * 1_000_000))
    name = f"{operation} {request_model}" if request_model else operation
    points = _points(attributes, metrics, usage, (end_ns - start_ns) / 1e9, streaming)
    message = scrub(stream.end_error)[:TEXT_CAP] if stream.end_error else None
    if parent is not None and parent.run:
        attributes["streamscope.run.id"] = parent.run[:TEXT_CAP]
    return CallSpan(name, start_ns, end_ns, attributes, error_type, message, points, parent)


def is_streaming(request: Mapping[str, Any], url: str, stream: Stream) -> bool:
    """Whether the call streamed: the request's own ``stream`` flag where it has one (Ollama
    streams unless told not to), a streaming path (Gemini's ``:streamGenerateContent``,
    Bedrock's ``converse-stream``), else what came: anything but one whole JSON body."""
    flag = request.get("stream")
    if isinstance(flag, bool):
        return flag
    path = urlsplit(url).path
    if ":streamGenerateContent" in path or path.endswith("/converse-stream"):
        return True
    if ":generateContent" in path or path.endswith("/converse"):
        return False
    return stream.container != "json" or stream.dialect_name == "ollama"


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def provider(url: str, dialect: str) -> str:
    """``gen_ai.provider.name`` for a call to ``url`` read as ``dialect``."""
    host = (urlsplit(url).hostname or "").lower()
    for suffix, name in HOSTS:
        if host == suffix or host.endswith("." + suffix):
            return name
    return DIALECT_PROVIDERS.get(dialect, "openai")


def _model(request: Mapping[str, Any], url: str) -> str | None:
    model = request.get("model")
    if isinstance(model, str) and model:
        return model[:TEXT_CAP]
    found = GEMINI_MODEL.search(urlsplit(url).path)
    return unquote(found[1])[:TEXT_CAP] if found else None


def _port(parts: Any) -> int | None:
    try:
        port = parts.port
    except ValueError:
        return None
    if port is not None:
        return int(port)
    return {"http": 80, "https": 443}.get(parts.scheme)


def _truncated(stream: Stream, present: set[type]) -> bool:
    """Whether the stream ended before its dialect's final event (the stream-truncated rule's
    evidence: ``app/domain/rules/sse/stream_truncated.py``)."""
    if StreamError in present or stream.end_reason not in (None, "done"):
        return True
    sightings = stream.sightings
    if "final_missing" in sightings:
        return True
    if "done_missing" in sightings:
        finished = {e.choice for e in stream.events if isinstance(e, Finish)}
        return not finished
    return False


def _finish_reasons(outputs: list[dict[str, Any]]) -> tuple[str, ...]:
    reasons = [str(o["stop_reason"]) for o in outputs if o.get("stop_reason") not in (None, "")]
    return tuple(r[:TEXT_CAP] for r in reasons[:MAX_FINISH_REASONS])


def _usage(counts: Any, dialect: str, final: Any) -> dict[str, int | None]:
    usage: dict[str, int | None] = dict(counts) if isinstance(counts, dict) else {}
    if (
        dialect == "anthropic-messages"
        and isinstance(final, dict)
        and usage.get("input_tokens") is not None
    ):
        # The conventions' input count includes the cached tokens; Anthropic's leaves out
        # those read from and written to its cache.
        extra = sum(
            value
            for key in ("cache_read_input_tokens", "cache_creation_input_tokens")
            if isinstance(value := final.get(key), int) and not isinstance(value, bool)
        )
        usage["input_tokens"] = int(usage["input_tokens"] or 0) + extra
    return usage


def _error_type(stream: Stream, truncated: bool, present: set[type]) -> str | None:
    """``error.type``: the upstream's HTTP status for an error answer, ``stream_error`` for an
    error event in the stream, how the stream ended when it did not end ``done`` (a deadline
    is ``error``, ``disconnected``, ``cancelled``...), ``stream_truncated`` without its final
    event; None for a whole answer."""
    found = HTTP_STATUS.search(stream.end_error or "")
    if found and stream.end_reason not in (None, "done"):
        return found[1]
    if StreamError in present:
        return "stream_error"
    if stream.end_reason not in (None, "done"):
        return str(stream.end_reason)[:TEXT_CAP]
    if truncated:
        return "stream_truncated"
    return None


def _start_ns(created: Any, now: float) -> int:
    if isinstance(created, str) and created:
        try:
            return round(datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp() * 1e9)
        except ValueError:
            pass
    return round(now * 1e9)


def _last_ms(stream: Stream, metrics: Metrics) -> float | None:
    if stream.timed and stream.raw:
        times = [raw.t for raw in stream.raw[-1:] if raw.t is not None]
        if times:
            return float(times[0])
    return metrics.e2el_ms


def _points(
    attributes: Mapping[str, AttributeValue],
    metrics: Metrics,
    usage: Mapping[str, int | None],
    duration_s: float,
    streaming: bool,
) -> tuple[Point, ...]:
    """The call's metric records; time to first chunk and per output chunk only for a
    streamed call (the conventions: they SHOULD NOT be reported otherwise)."""
    keys = (
        "gen_ai.operation.name",
        "gen_ai.provider.name",
        "gen_ai.request.model",
        "gen_ai.response.model",
        "server.address",
        "server.port",
        "error.type",
    )
    common = {k: attributes[k] for k in keys if k in attributes}
    out = [Point(DURATION, duration_s, common)]
    if metrics.ttft_ms is not None and streaming:
        out.append(Point(TIME_TO_FIRST_CHUNK, metrics.ttft_ms / 1000, common))
    if streaming:
        out.extend(
            Point(TIME_PER_OUTPUT_CHUNK, gap / 1000, common)
            for gap in metrics.itl_ms[:MAX_CHUNK_GAPS]
        )
    for key, kind in (("input_tokens", "input"), ("output_tokens", "output")):
        if usage.get(key) is not None:
            out.append(
                Point(TOKEN_USAGE, float(usage[key] or 0), {**common, "gen_ai.token.type": kind})
            )
    return tuple(out)


def _content(
    request: Mapping[str, Any], outputs: list[dict[str, Any]], scrub: Callable[[str], str]
) -> dict[str, AttributeValue]:
    """The prompt and the completion as the conventions' opt-in message attributes, recorded
    as JSON strings (span attributes are not structured in OTLP's SDKs), scrubbed and capped."""
    out: dict[str, AttributeValue] = {}
    messages = _input_messages(request)
    if messages:
        out["gen_ai.input.messages"] = _capped(scrub(orjson.dumps(messages).decode()))
    answers = [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": o.get("text") or ""}],
            "finish_reason": str(o.get("stop_reason") or ""),
        }
        for o in outputs
    ]
    if answers:
        out["gen_ai.output.messages"] = _capped(scrub(orjson.dumps(answers).decode()))
    return out


def _input_messages(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's messages in the conventions' input shape: a role and its parts, text
    where the message's content is text, the content's own JSON otherwise."""
    found: list[dict[str, Any]] = []
    messages = request.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                found.append(
                    {
                        "role": str(message.get("role", "user")),
                        "parts": _parts(message.get("content")),
                    }
                )
    for key in ("prompt", "input"):
        value = request.get(key)
        if isinstance(value, str):
            found.append({"role": "user", "parts": _parts(value)})
        elif key == "input" and isinstance(value, list):
            found.extend(
                {"role": str(item.get("role", "user")), "parts": _parts(item.get("content"))}
                for item in value
                if isinstance(item, dict)
            )
    contents = request.get("contents")  # Gemini
    if isinstance(contents, list):
        found.extend(
            {"role": str(item.get("role", "user")), "parts": _parts(item.get("parts"))}
            for item in contents
            if isinstance(item, dict)
        )
    return found


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append({"type": "text", "content": part["text"]})
            else:
                parts.append({"type": "json", "content": part})
        return parts
    return [] if content is None else [{"type": "json", "content": content}]


def _capped(text: str) -> str:
    return text if len(text) <= CONTENT_CAP else text[: CONTENT_CAP - 1] + "…"
