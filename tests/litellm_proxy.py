"""LiteLLM's proxy (a real third-party gateway that re-streams), started on a free loopback port
in front of the quirky upstream (tests/quirky_upstream.py), for tests/test_litellm_proxy.py.

LiteLLM is pinned, with every dependency, in tests/servers/litellm-requirements.txt and lives in
a venv of its own (``.venv-litellm``, made by ``./scripts/test``): ``litellm[proxy]`` pins its own
FastAPI, uvicorn, pydantic and openai, which must not move the project's test venv. Another
install can be named by ``STREAMSCOPE_LITELLM`` (the ``litellm`` command's path).

The proxy is started as its documentation says (``litellm --config config.yaml --port P``, the
config's ``model_list`` routing each model name to an OpenAI-compatible ``api_base`` through the
``openai/`` provider), on 127.0.0.1, with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (its model cost
map from the package, not fetched at start-up) and no database (no ``DATABASE_URL``: no keys,
no spend logs). It is waited for until ``GET /health/liveliness`` answers, and stopped (its
process group, by id) after.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from .live_server import free_port

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "tests" / "servers" / "litellm-requirements.txt"
VENV = ROOT / ".venv-litellm"
MASTER_KEY = "sk-litellm-test-master"  # the proxy's own key (LiteLLM wants "sk-..." keys)
UPSTREAM_KEY = "sk-quirky-upstream"  # what the proxy sends the upstream


def command() -> Path | None:
    """The ``litellm`` command to run, or None when it is not installed."""
    named = os.environ.get("STREAMSCOPE_LITELLM")
    path = Path(named) if named else VENV / "bin" / "litellm"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def config(routes: dict[str, str]) -> str:
    """A proxy config routing each model name to an OpenAI-compatible base URL."""
    lines = ["model_list:"]
    for name, base_url in routes.items():
        lines += [
            f"  - model_name: {name}",
            "    litellm_params:",
            f"      model: openai/{name}",
            f"      api_base: {base_url}",
            f"      api_key: {UPSTREAM_KEY}",
        ]
    lines += ["general_settings:", f"  master_key: {MASTER_KEY}"]
    return "\n".join(lines) + "\n"


class LiteLLMProxy:
    def __init__(self, folder: Path, routes: dict[str, str]) -> None:
        found = command()
        if found is None:
            raise FileNotFoundError(f"no litellm command: ./scripts/test installs it in {VENV}")
        self.command = found
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.config = folder / "litellm-config.yaml"
        self.config.write_text(config(routes))
        self.log = folder / "litellm.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_seconds: float | None = None

    def start(self, timeout: float = 90) -> LiteLLMProxy:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.upper().endswith("_PROXY")  # loopback only, never through a proxy
            and key not in ("DATABASE_URL", "LITELLM_MASTER_KEY")
        }
        env.update(
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            NO_PROXY="127.0.0.1,localhost",
            PYTHONUNBUFFERED="1",
        )
        started = time.monotonic()
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [str(self.command), "--config", str(self.config), *self._address()],
                cwd=self.folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped whole, by id
            )
        health = f"http://127.0.0.1:{self.port}/health/liveliness"
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"litellm exited ({self.process.returncode}): {self.tail()}")
            try:
                with urllib.request.urlopen(health, timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() - started > timeout:
                self.stop()
                raise TimeoutError(f"litellm did not answer in {timeout} s: {self.tail()}")
            time.sleep(0.2)
        self.startup_seconds = time.monotonic() - started
        return self

    def _address(self) -> list[str]:
        return ["--host", "127.0.0.1", "--port", str(self.port)]

    def tail(self, size: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-size:] if self.log.exists() else ""

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        group = os.getpgid(process.pid)
        os.killpg(group, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(group, signal.SIGKILL)
            process.wait(timeout=5)
        # what the group may still hold (uvicorn workers): none should be left
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
