"""Settings: one table of (name, default, help), read from ``STREAMSCOPE_*`` variables.

``create_app(config)`` takes overrides by name (lower case, without the prefix); the command
line sets the same names. Types follow the default's type.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir

from ..live.keys import DEFAULT as API_KEYS_DEFAULT


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("data_dir", "", "where the SQLite store lives (default: the user data folder)"),
    Setting("database_url", "", "sqlite:///path or postgresql://... (default: SQLite in data_dir)"),
    Setting("host", "127.0.0.1", "interface to listen on"),
    Setting("port", 5000, "port to listen on"),
    Setting("public", False, "treat the server as public even on loopback (network policy)"),
    Setting("max_upload_mb", 50, "largest upload accepted, in MB"),
    Setting("max_decompressed_mb", 256, "largest decompressed gzip capture, in MB"),
    Setting("max_concurrent_imports", 3, "uploads parsed at once; more wait briefly, then busy"),
    Setting("ws_max_message", 65536, "largest websocket message accepted from a page, in bytes"),
    Setting("ws_ping_interval", 25, "seconds between websocket pings"),
    Setting("ws_send_timeout", 5.0, "seconds a page may stop reading before it is dropped"),
    Setting(
        "ws_capacity",
        500,
        "websockets open at once; more get 503 (production: threads minus a reserve)",
    ),
    Setting(
        "thread_idle_s", 10.0, "production: seconds an idle connection thread waits before ending"
    ),
    Setting("ws_per_client", 64, "websockets open at once from one address; more get 429"),
    Setting(
        "ws_rate", 10.0, "new websockets per second from one address (token bucket); more get 429"
    ),
    Setting("ws_burst", 40, "burst of new websockets allowed from one address"),
    Setting("event_batch", 2000, "timeline events per websocket message"),
    Setting("allowed_origins", "", "extra Origins allowed to open websockets (comma-separated)"),
    Setting("stall_ms", 250.0, "gap between chunks that counts as a stall, in ms"),
    Setting("untimed_pace_ms", 40.0, "pace for captures without timing, ms per raw event"),
    Setting("capture_cache", 8, "parsed captures kept in memory"),
    Setting(
        "api_keys",
        API_KEYS_DEFAULT,
        "server variables a live run may take its API key from, each tied to the one base URL it may be sent to (VARIABLE=URL, comma-separated)",
    ),
    Setting(
        "upstream_allow", "", "hosts or networks a public server may still reach (comma-separated)"
    ),
    Setting("connect_timeout", 10.0, "live: seconds to connect upstream"),
    Setting(
        "first_byte_timeout", 120.0, "live: seconds from the response headers to the first byte"
    ),
    Setting("idle_timeout", 60.0, "live: seconds without data before giving up"),
    Setting("total_timeout", 900.0, "live: seconds a run may last"),
    Setting(
        "max_live_mb",
        64,
        "live: largest run, in MB (its recording plus its timeline in memory); past it the run stops, too_large",
    ),
    Setting(
        "models_timeout",
        15.0,
        "live: seconds to list an upstream's models (connect, headers, body)",
    ),
    Setting(
        "max_concurrent_models", 4, "live: model lists fetched at once; more get 503 busy at once"
    ),
)
DEFAULTS = {s.name: s.default for s in SETTINGS}


def _coerce(default: Any, value: str) -> Any:
    if isinstance(default, bool):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    return value


def load(overrides: dict[str, Any] | None = None, environ: dict[str, str] | None = None) -> dict:
    environ = os.environ if environ is None else environ
    settings = dict(DEFAULTS)
    for setting in SETTINGS:
        raw = environ.get(f"STREAMSCOPE_{setting.name.upper()}")
        if raw is not None and raw != "":
            settings[setting.name] = _coerce(setting.default, raw)
    for key, value in (overrides or {}).items():
        if key in settings and value is not None:
            settings[key] = value
    if not settings["data_dir"]:
        settings["data_dir"] = user_data_dir("streamscope", appauthor=False)
    settings["data_dir"] = str(Path(settings["data_dir"]).expanduser())
    return settings
