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

import os
from pathlib import Path

from .server_process import ServerProcess, loopback_env

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


class LiteLLMProxy(ServerProcess):
    name = "litellm"

    def __init__(self, folder: Path, routes: dict[str, str]) -> None:
        found = command()
        if found is None:
            raise FileNotFoundError(f"no litellm command: ./scripts/test installs it in {VENV}")
        super().__init__(folder)
        self.command = found
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.config = folder / "litellm-config.yaml"
        self.config.write_text(config(routes))

    def start(self, timeout: float = 90) -> LiteLLMProxy:
        env = loopback_env(LITELLM_LOCAL_MODEL_COST_MAP="True")
        for name in ("DATABASE_URL", "LITELLM_MASTER_KEY"):
            env.pop(name, None)
        argv = [str(self.command), "--config", str(self.config)]
        argv += ["--host", "127.0.0.1", "--port", str(self.port)]
        self.launch(argv, env, f"http://127.0.0.1:{self.port}/health/liveliness", timeout)
        return self
