"""llama-cpp-python's OpenAI-compatible server (a real inference server: llama.cpp under a
FastAPI app), started on a free loopback port with a tiny model the tests make
(tests/servers/tiny_gguf.py: a bigram table that answers "Hello, world! How are you?"), for
tests/test_llama_cpp_server.py.

It is pinned, with every dependency, in tests/servers/llama-requirements.txt and lives in a venv
of its own (``.venv-llama``, made by ``./scripts/test``). It is started as its documentation
says (``python -m llama_cpp.server --model M --host H --port P``; any other setting as a
``--name value`` flag, e.g. ``--interrupt_requests False``) and waited for until ``GET
/v1/models`` answers (measured here: 0.5 s)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .server_process import ServerProcess, loopback_env

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-llama"
MODEL_MAKER = ROOT / "tests" / "servers" / "tiny_gguf.py"


def python() -> Path | None:
    """The llama venv's interpreter, or None when it is not installed."""
    path = VENV / "bin" / "python"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def tiny_model(folder: Path) -> Path:
    """The tiny model, written by the llama venv (it has gguf and numpy)."""
    interpreter = python()
    if interpreter is None:
        raise FileNotFoundError(f"no llama venv: ./scripts/test installs it in {VENV}")
    path = folder / "tiny.gguf"
    subprocess.run([str(interpreter), str(MODEL_MAKER), str(path)], check=True, timeout=60)
    return path


class LlamaCppServer(ServerProcess):
    name = "llama-cpp-server"

    def __init__(self, folder: Path, model: Path, **settings: str) -> None:
        super().__init__(folder)
        self.model = model
        self.settings = settings
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 60) -> LlamaCppServer:
        argv = [str(python()), "-m", "llama_cpp.server", "--model", str(self.model)]
        argv += ["--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "4096"]
        for name, value in self.settings.items():
            argv += [f"--{name}", value]
        self.launch(argv, loopback_env(), f"{self.url}/models", timeout)
        return self
