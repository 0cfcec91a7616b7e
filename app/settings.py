"""Settings: one frozen ``Settings`` object, its fields the settings table.

Each field is one setting: its name, its default (whose type is the setting's) and what it is
for (this module imports nothing of the application's); ``SETTINGS`` lists them for the README and the docs test. Every setting is read from a
``STREAMSCOPE_<NAME>`` variable; ``load(overrides)`` also takes overrides by name (lower case,
without the prefix), which is how the command line sets the same names.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from platformdirs import user_data_dir

T = TypeVar("T")
# The key variables a live run may name, each with the one upstream it may go to (live/keys.py).
API_KEYS_DEFAULT = (
    "OPENAI_API_KEY=https://api.openai.com/v1,"
    "OPENROUTER_API_KEY=https://openrouter.ai/api/v1,"
    "GROQ_API_KEY=https://api.groq.com/openai/v1,"
    "ANTHROPIC_API_KEY=https://api.anthropic.com,"
    "GEMINI_API_KEY=https://generativelanguage.googleapis.com"
)


def setting(default: T, help: str) -> T:
    """One row of the settings table: a default and what the setting is for."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Settings:
    data_dir: str = setting(
        "",
        "where the SQLite store lives (default: the user data folder)",
    )
    database_url: str = setting(
        "",
        "sqlite:///path or postgresql://... (default: SQLite in data_dir)",
    )
    host: str = setting(
        "127.0.0.1",
        "interface to listen on",
    )
    port: int = setting(
        5000,
        "port to listen on",
    )
    public: bool = setting(
        False,
        "treat the server as public even on loopback (network policy)",
    )
    max_upload_mb: int = setting(
        50,
        "largest upload accepted, in MB",
    )
    max_decompressed_mb: int = setting(
        0,
        "largest capture stored once gzip is undone, in MB (0: the upload cap); more get 413",
    )
    max_line_mb: int = setting(
        8,
        "longest line (or JSON payload) read whole, in MB; longer is skipped",
    )
    scrub_seconds: float = setting(
        20.0,
        "CPU seconds scrubbing one upload may take; past it the upload is refused, 400 cannot_scrub",
    )
    max_concurrent_imports: int = setting(
        3,
        "uploads parsed at once; more wait briefly, then busy",
    )
    ws_max_message: int = setting(
        65536,
        "largest websocket message accepted from a page, in bytes",
    )
    ws_ping_interval: int = setting(
        25,
        "seconds between websocket pings",
    )
    ws_send_timeout: float = setting(
        5.0,
        "seconds a page may stop reading before it is dropped",
    )
    ws_capacity: int = setting(
        500,
        "websockets open at once; more get 503 (production: threads minus a reserve)",
    )
    thread_idle_s: float = setting(
        10.0,
        "production: seconds an idle connection thread waits before ending",
    )
    ws_per_client: int = setting(
        0,
        "websockets open at once from one address; more get 429 (0: a quarter of the capacity)",
    )
    ws_rate: float = setting(
        10.0,
        "new websockets per second from one address (token bucket); more get 429",
    )
    ws_burst: int = setting(
        40,
        "burst of new websockets allowed from one address",
    )
    event_batch: int = setting(
        2000,
        "timeline events per websocket message",
    )
    allowed_origins: str = setting(
        "",
        "extra Origins allowed to open websockets (comma-separated)",
    )
    stall_ms: float = setting(
        250.0,
        "gap between chunks that counts as a stall, in ms",
    )
    untimed_pace_ms: float = setting(
        40.0,
        "pace for captures without timing, ms per raw event",
    )
    capture_cache_mb: int = setting(
        512,
        "MB of parsed captures (and their encoded replays) kept in memory per process; the newest is kept whatever its size",
    )
    results_cache_mb: int = setting(
        2048,
        "MB of built timeline documents, exports and downloads kept under data_dir/results (small ones in memory)",
    )
    max_markers: int = setting(
        100,
        "markers one capture may hold (its owner adds them); more get 400 too_many_markers",
    )
    judges_timeout_s: float = setting(
        30.0,
        "seconds one client judge may run on one stream before its process is killed (docs/judges.md)",
    )
    judges_memory_mb: int = setting(
        2048,
        "MB of address space one client judge's process may take (RLIMIT_AS; Node needs about 1024)",
    )
    judges_per_hour: int = setting(
        20,
        "judge runs (POST /api/captures/<id>/judges) one address may start per hour; more get 429",
    )
    api_keys: str = setting(
        API_KEYS_DEFAULT,
        "server variables a live run may take its API key from, each tied to the one base URL it may be sent to (VARIABLE=URL, comma-separated)",
    )
    upstream_allow: str = setting(
        "",
        "hosts or networks a public server may still reach (comma-separated)",
    )
    connect_timeout: float = setting(
        10.0,
        "live: seconds to connect upstream",
    )
    first_byte_timeout: float = setting(
        120.0,
        "live: seconds from the request to the response headers, and again to the first byte",
    )
    idle_timeout: float = setting(
        60.0,
        "live: seconds without data before giving up",
    )
    total_timeout: float = setting(
        900.0,
        "live: seconds a run may last",
    )
    max_live_mb: int = setting(
        64,
        "live: largest run, in MB (its recording plus its timeline in memory); past it the run stops, too_large",
    )
    models_timeout: float = setting(
        15.0,
        "live: seconds to list an upstream's models (connect, headers, body)",
    )
    max_concurrent_models: int = setting(
        4,
        "live: model lists fetched at once; more get 503 busy at once",
    )
    max_conform_runs: int = setting(
        2,
        "conform: batteries run from the page (POST /api/conform) at once, per process; more get 503 busy",
    )
    allowed_hosts: str = setting(
        "",
        "Host names this server answers besides its own address (name or name:port, comma-separated; * for any)",
    )
    work_capacity: int = setting(
        500,
        "websockets, requests with a body, proxied calls and heavy GETs served at once; more get 503 (production: threads minus thread_reserve)",
    )
    work_per_client: int = setting(
        0,
        "of that slow work, units one address may hold at once (websockets aside); more get 429 (0: a quarter of the capacity)",
    )
    thread_reserve: int = setting(
        8,
        "production: threads kept for requests without a body (pages, /healthz)",
    )
    max_receiving: int = setting(
        16,
        "request bodies received at once (a quarter per address); more wait 5 s, then 503",
    )
    body_timeout: float = setting(
        10.0,
        "seconds a request body may take, plus 1 s per body_min_rate_kb KB received; else 408",
    )
    body_min_rate_kb: int = setting(
        64,
        "KB/s a request body must keep up after body_timeout",
    )
    redis_url: str = setting(
        "",
        "redis://host:port/db: live runs, proxied calls and presenter rooms reach their viewers on every process through Redis Streams (docs/scaling.md); empty: each process serves its own",
    )
    redis_maxlen: int = setting(
        20000,
        "entries a live run's Redis stream keeps (MAXLEN); a viewer who needs older ones reads them from the store",
    )
    redis_ttl_s: int = setting(
        60,
        "seconds a live run's Redis stream is kept after the run's end",
    )
    redis_timeout: float = setting(
        1.0,
        "seconds to connect to Redis and for each of its answers; past it viewers follow the stored recording",
    )
    header_timeout: float = setting(
        10.0,
        "production: seconds a client may take to send its request head",
    )
    proxy_upstreams: str = setting(
        "",
        "the recording proxy's upstreams (NAME=URL, comma-separated); the proxy is off without them",
    )
    proxy_token: str = setting(
        "",
        "the token the recording proxy and its calls list require (header X-Streamscope-Proxy-Token or ?proxy_token=); required on a public server",
    )
    proxy_max_body_mb: int = setting(
        32,
        "recording proxy: largest request body forwarded, in MB; more get 413",
    )
    otlp_endpoint: str = setting(
        "",
        "OpenTelemetry: base URL of an OTLP/HTTP (protobuf) receiver; each proxied call and live run goes there as a GenAI span, with the GenAI client metrics (docs/otel.md); empty: no export",
    )
    otlp_headers: str = setting(
        "",
        "OpenTelemetry: headers sent with each export, as OTEL_EXPORTER_OTLP_HEADERS (k=v,k2=v2, URL-decoded); secrets: never logged",
    )
    otlp_content: bool = setting(
        False,
        "OpenTelemetry: also export the prompt and the completion (gen_ai.input.messages, gen_ai.output.messages), scrubbed like everything else",
    )
    room_rate: float = setting(
        20.0,
        "rooms: presenter actions one room mirrors per second (burst of twice that); more are refused",
    )
    room_viewers: int = setting(
        300,
        "rooms: pages in one room at once (presenter included); more are refused, room_full",
    )
    rooms_per_capture: int = setting(
        20,
        "rooms: rooms one capture or demo may have at once; more get 429",
    )
    rooms_per_client: int = setting(
        20,
        "rooms: rooms one address may have made that are still open; more get 429",
    )

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = tuple(
    Setting(f.name, f.default, f.metadata["help"]) for f in fields(Settings)
)
DEFAULTS: dict[str, Any] = {s.name: s.default for s in SETTINGS}


def _coerce(default: Any, value: str) -> Any:
    if isinstance(default, bool):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    return value


def load(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    environ = os.environ if environ is None else environ
    values = dict(DEFAULTS)
    for item in SETTINGS:
        raw = environ.get(f"STREAMSCOPE_{item.name.upper()}")
        if raw is not None and raw != "":
            values[item.name] = _coerce(item.default, raw)
    for key, value in (overrides or {}).items():
        if key in values and value is not None:
            values[key] = value
    _derive(values)
    if not values["data_dir"]:
        values["data_dir"] = user_data_dir("streamscope", appauthor=False)
    values["data_dir"] = str(Path(values["data_dir"]).expanduser())
    return Settings(**values)


def _derive(values: dict[str, Any]) -> None:
    """Settings whose 0 means "follow another one" (docs/security.md, "What one client can
    cost"): gzip may not store more than a plain upload could, and one address may hold at
    most a quarter of the websocket capacity, and of the slow-work capacity."""
    if values["max_decompressed_mb"] <= 0:
        values["max_decompressed_mb"] = values["max_upload_mb"]
    if values["ws_per_client"] <= 0:
        values["ws_per_client"] = max(1, values["ws_capacity"] // 4)
    if values["work_per_client"] <= 0:
        values["work_per_client"] = max(1, values["work_capacity"] // 4)
