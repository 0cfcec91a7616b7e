"""Starting live runs from validated requests, and listing an upstream's models."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..captures.model import Capture
from ..otel.job import Job, Sink, share_url
from ..otel.model import Parent
from ..settings import Settings
from ..storage import CaptureRecord, CaptureStore
from .hub import LiveRun, Registry
from .keys import KeyBindings
from .mirror import Mirror, Mirrors
from .models import ModelLister
from .policy import Policy, PolicyRefused
from .publish import RunPublisher, request_stop
from .recorder import Recorder, run_title
from .redact import Redactor
from .request import RunRequest, Timeouts
from .runconfig import RunConfigError, api_key_of, api_of, base_url_of, preview, unkeyed_request
from .streams import RedisStreams
from .upstream import UpstreamRun

__all__ = ["PRESETS", "LiveService", "RunConfigError", "Started"]

# (label, API (apis.py), base URL, the key variable the server usually ties to it)
PRESETS = (
    ("OpenAI", "chat", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    ("OpenAI Responses", "responses", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    ("Anthropic", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
    ("Gemini", "gemini", "https://generativelanguage.googleapis.com", "GEMINI_API_KEY"),
    (
        "Gemini OpenAI-compatible",
        "chat",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "GEMINI_API_KEY",
    ),
    ("OpenRouter", "chat", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    ("Groq", "chat", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    ("vLLM (localhost:8000)", "chat", "http://localhost:8000/v1", ""),
    ("vLLM completions (localhost:8000)", "completions", "http://localhost:8000/v1", ""),
    ("llama.cpp (localhost:8080)", "chat", "http://localhost:8080/v1", ""),
    ("Ollama native (localhost:11434)", "ollama", "http://localhost:11434", ""),
    ("Ollama OpenAI-compatible (localhost:11434)", "chat", "http://localhost:11434/v1", ""),
    ("LM Studio (localhost:1234)", "chat", "http://localhost:1234/v1", ""),
)


@dataclass
class Started:
    run: LiveRun
    title: str


class LiveService:
    def __init__(
        self, store: CaptureStore, policy: Policy, timeouts: Timeouts, settings: Settings
    ) -> None:
        self.store = store
        self.policy = policy
        self.timeouts = timeouts
        self.settings = settings
        self.registry = Registry()
        self.keys = KeyBindings(settings.api_keys)
        self.lister = ModelLister(settings.models_timeout, settings.max_concurrent_models)
        self.max_bytes = int(settings.max_live_mb * 1_000_000)
        # Where a finished run goes (the parsed-capture cache: web/sources.py).
        self.remember: Callable[[CaptureRecord, Capture], None] = lambda record, capture: None
        # Where a finished run's span goes (docs/otel.md): set when STREAMSCOPE_OTLP_ENDPOINT is.
        self.otel: Sink | None = None
        # With Redis, runs reach viewers on every process (docs/scaling.md).
        self.streams: RedisStreams | None = None
        self.mirrors: Mirrors | None = None
        if settings.redis_url:
            longest = timeouts.connect + timeouts.total + 60.0
            self.streams = RedisStreams(
                settings.redis_url,
                maxlen=settings.redis_maxlen,
                ttl=int(longest),
                ttl_after=settings.redis_ttl_s,
                timeout=settings.redis_timeout,
            )
            self.mirrors = Mirrors(self.streams, store, settings.stall_ms, longest)

    # ------------------------------------------------------------------ requests
    def api_key(self, config: dict[str, Any], base_url: str) -> str | None:
        """The key for this request. A server variable only for the upstream it is tied to:
        checked before the variable is even read (keys.py)."""
        env = config.get("api_key_env")
        if env:
            if not isinstance(env, str):
                raise RunConfigError("api_key_env must be the name of a variable")
            refused = self.keys.why_not(env, base_url)
            if refused:
                raise RunConfigError(refused)
            value = os.environ.get(env)
            if not value:
                raise RunConfigError(f"the server has no {env} set")
            return value
        return api_key_of(config)

    def request(self, config: dict[str, Any]) -> RunRequest:
        """The run's request (runconfig.py), with its key."""
        request = unkeyed_request(config)
        request.api_key = self.api_key(config, request.base_url)
        return request

    def preview(self, config: dict[str, Any]) -> dict[str, Any]:
        """What a run with this config would send, for the page's preview: checked as a run
        is, a key variable included, but no key is read."""
        request = unkeyed_request(config)
        env = config.get("api_key_env")
        if env:
            refused = self.keys.why_not(str(env), request.base_url)
            if refused:
                raise RunConfigError(refused)
        return preview(request)

    # ------------------------------------------------------------------ runs
    def start(self, config: dict[str, Any], origin: str | None = None) -> Started:
        """A run of ``config``, started; ``origin`` is this server's URL as the page reached it
        (its span's share link is absolute then)."""
        request = self.request(config)
        redactor = Redactor(request.secrets(), self.settings.max_line_mb * 1024 * 1024)
        title = run_title(request.url, request.model)
        recorder = Recorder(
            self.store,
            redactor,
            url=request.url,
            body=request.body,
            title=title,
            api=request.api.name,
        )
        run = LiveRun(request, recorder, redactor, self.settings.stall_ms, self.max_bytes)
        upstream = UpstreamRun(request, run, self.policy, self.timeouts)
        run.upstream = upstream
        self.registry.add(run)
        self.publish(run)  # before the upstream starts: it publishes from the first piece

        def work() -> None:
            try:
                upstream.run()
                record = self.store.get(run.capture_id)
                if record is not None:  # not deleted while it streamed
                    self.stored(record, run, origin)
            finally:
                self.registry.remove(run.capture_id)

        threading.Thread(target=work, name=f"run-{run.capture_id[:6]}", daemon=True).start()
        return Started(run, title)

    def stored(
        self,
        record: CaptureRecord,
        run: LiveRun,
        origin: str | None = None,
        parent: Parent | None = None,
    ) -> None:
        """A finished run (or proxied call) is in the store: cached as its recording reads,
        and handed to the OpenTelemetry exporter when there is one (it never waits)."""
        self.remember(record, run.capture())
        # A call to an LLM API, or one whose answer read as a dialect's: a models listing or
        # a health check through the proxy is not a GenAI operation.
        llm = bool(run.recorder.header.get("api")) or run.stream.dialect is not None
        if self.otel is not None and llm:
            self.otel.submit(
                Job(
                    run.recorder.header,
                    run.stream,
                    capture_id=run.capture_id,
                    share_url=share_url(origin, run.capture_id),
                    scrub=run.redactor.text,
                    ended_ms=run.ended_ms,
                    stall_ms=run.stall_ms,
                    parent=parent,
                )
            )

    def publish(self, run: LiveRun) -> None:
        """With Redis, the run's log goes to its stream for the other processes' viewers
        (live runs and proxied calls alike; docs/scaling.md)."""
        if self.streams is not None:
            RunPublisher(run, self.streams).start()

    def elsewhere(self, capture_id: str) -> Mirror | None:
        """A live run of another process, to follow through Redis (None without Redis, or
        when ``capture_id`` is not such a run)."""
        return self.mirrors.follow(capture_id) if self.mirrors is not None else None

    def deleted(self, capture_id: str) -> None:
        """Its recording was deleted: a run of another process stops now, not at its next
        read (its own process notices the deletion then anyway)."""
        if self.streams is not None and self.registry.get(capture_id) is None:
            request_stop(self.streams, capture_id, b"deleted")

    def models(self, config: dict[str, Any]) -> list[str]:
        """The upstream's model ids (raises RunConfigError, or models.ModelsError/ModelsBusy)."""
        base_url = base_url_of(config)
        api = api_of(config)
        key = self.api_key(config, base_url)
        parts = urlsplit(base_url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            address = self.policy.resolve(parts.hostname or "", port)
        except ValueError as exc:  # a port that is not a number, or out of range
            raise RunConfigError(f"base_url: {exc}") from None
        except PolicyRefused as exc:
            raise RunConfigError(str(exc)) from None
        return self.lister.list(base_url, address, key, api)
