"""Arize Phoenix (a real OTLP receiver, with its own API to read spans back), started on free
loopback ports for tests/test_otel_phoenix.py (docs/otel.md, "Tested against").

Phoenix is pinned, with every dependency, in tests/servers/phoenix-requirements.txt and lives in
a venv of its own (``.venv-phoenix``, made by ``./scripts/test``): it pins its own FastAPI,
SQLAlchemy and OpenTelemetry packages, which must not move the project's test venv. Another
install can be named by ``STREAMSCOPE_PHOENIX`` (the ``phoenix`` command's path).

It is started as its documentation says (``phoenix serve``) with ``PHOENIX_WORKING_DIR`` a
folder of the test's own (its SQLite database there), ``PHOENIX_HOST`` 127.0.0.1 and free ports
for HTTP (the UI, its REST API and OTLP/HTTP at ``/v1/traces``) and gRPC; waited for until
``GET /healthz`` answers, and stopped (its process group, by id) after. Spans are read back
through its REST API, ``GET /v1/projects/{project}/spans`` (the project ``default``: the spans'
resource names none).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .live_server import free_port
from .server_process import ServerProcess, loopback_env

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-phoenix"
PROJECT = "default"


def command() -> Path | None:
    """The ``phoenix`` command to run, or None when it is not installed."""
    named = os.environ.get("STREAMSCOPE_PHOENIX")
    path = Path(named) if named else VENV / "bin" / "phoenix"
    return path if path.is_file() and os.access(path, os.X_OK) else None


class Phoenix(ServerProcess):
    name = "phoenix"

    def __init__(self, folder: Path) -> None:
        found = command()
        if found is None:
            raise FileNotFoundError(f"no phoenix command: ./scripts/test installs it in {VENV}")
        super().__init__(folder)
        self.command = found
        self.grpc_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> Phoenix:
        env = {k: v for k, v in loopback_env().items() if not k.startswith(("PHOENIX_", "OTEL_"))}
        env.update(
            PHOENIX_WORKING_DIR=str(self.folder),
            PHOENIX_HOST="127.0.0.1",
            PHOENIX_PORT=str(self.port),
            PHOENIX_GRPC_PORT=str(self.grpc_port),
            PHOENIX_TELEMETRY_ENABLED="false",  # it sends nothing of its own anywhere
        )
        self.launch([str(self.command), "serve"], env, f"{self.url}/healthz", timeout)
        return self

    def spans(self) -> list[dict[str, Any]]:
        """Every span Phoenix holds in the project, through its own REST API (all pages)."""
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            query = "?limit=1000" + (f"&cursor={cursor}" if cursor else "")
            url = f"{self.url}/v1/projects/{PROJECT}/spans{query}"
            try:
                with urllib.request.urlopen(url, timeout=10) as answer:
                    page = json.loads(answer.read())
            except urllib.error.HTTPError as exc:
                if exc.code == 404:  # no span yet: the project is made by the first one
                    return found
                raise
            found.extend(page["data"])
            cursor = page.get("next_cursor")
            if not cursor:
                return found

    def span_where(self, key: str, value: Any, timeout: float = 30) -> dict[str, Any]:
        """The span whose attribute ``key`` is ``value``, once Phoenix has it."""
        return self.spans_where(key, value, 1, timeout)[0]

    def spans_where(
        self, key: str, value: Any, count: int, timeout: float = 30
    ) -> list[dict[str, Any]]:
        """The spans whose attribute ``key`` is ``value``, once Phoenix has ``count`` of them
        (it stores what it received a moment later)."""
        deadline = time.monotonic() + timeout
        while True:
            found = [s for s in self.spans() if s.get("attributes", {}).get(key) == value]
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(found)} span(s) with {key}={value!r} in {timeout} s")
            time.sleep(0.25)
