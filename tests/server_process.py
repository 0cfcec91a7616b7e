"""A third-party server the tests start and stop (LiteLLM's proxy, llama-cpp-python's server):
a process of its own on a free loopback port, in its own process group (stopped whole, by id),
its output in a log file under its folder, waited for until a health URL answers 200 (or it
exits, or a deadline passes: both raise, with the log's tail)."""

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


def loopback_env(**extra: str) -> dict[str, str]:
    """This process's environment for a server on loopback: no proxy variables (nothing goes
    through a proxy), ``NO_PROXY`` for loopback, unbuffered Python output."""
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
    return {**env, "NO_PROXY": "127.0.0.1,localhost", "PYTHONUNBUFFERED": "1", **extra}


class ServerProcess:
    name = "server"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.log = folder / f"{self.name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_seconds: float | None = None

    def launch(self, argv: list[str], env: dict[str, str], health: str, timeout: float) -> None:
        started = time.monotonic()
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                argv,
                cwd=self.folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped whole, by id
            )
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}): {self.tail()}")
            try:
                with urllib.request.urlopen(health, timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() - started > timeout:
                self.stop()
                raise TimeoutError(f"{self.name} did not answer in {timeout} s: {self.tail()}")
            time.sleep(0.2)
        self.startup_seconds = time.monotonic() - started

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


def interruptible() -> None:
    """A ``preexec_fn`` for a child that a test stops with Ctrl-C: SIGINT back to its default.
    A shell starts a background job with SIGINT ignored, the child inherits that, and Python
    then installs no KeyboardInterrupt handler: a suite run in the background (``.ci/run &``)
    would see the child ignore the test's SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
