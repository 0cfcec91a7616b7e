"""The commands that talk to servers: ``record`` against the fake upstream (its exit status
says whether the run worked), and the start-up line of ``serve``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.captures import read_capture

from .live_server import LiveServer, free_port
from .server_process import interruptible

pytestmark = pytest.mark.integration  # starts real servers on loopback


def record_command(base_url: str, model: str, out, *extra: str) -> list[str]:
    options = ["--base-url", base_url, "--model", model, "--prompt", "Hi", "-o", str(out)]
    return [sys.executable, "-m", "app.cli", "record", *options, *extra]


def record(
    base_url: str, model: str, out, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        record_command(base_url, model, out, *extra),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@pytest.mark.parametrize(
    ("model", "words"),
    [
        ("500", "HTTP 500 from upstream: The server had an error"),
        ("html", "HTTP 502 from upstream: an HTML page, not a stream"),
        ("html:200", "HTTP 200 from upstream: an HTML page titled 'OK', not a stream"),
        ("replay:groq-gptoss-event-error-midstream.sse", "the stream reported an error"),
    ],
)
def test_record_exits_non_zero_when_the_upstream_fails_and_keeps_what_came(
    fake, tmp_path, model, words
):
    out = tmp_path / "run.timed.jsonl"
    result = record(fake.url, model, out)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr
    assert "recorded to" in result.stderr and "(error)" in result.stderr
    assert "None" not in result.stderr  # "tokens unknown", never "None tokens (None)"
    capture = read_capture(out.read_bytes())
    assert capture.format == "timed" and capture.streams[0].end_reason == "error"


def test_record_exits_non_zero_on_a_refused_connection(tmp_path):
    out = tmp_path / "run.timed.jsonl"
    result = record(f"http://127.0.0.1:{free_port()}/v1", "m", out)
    assert result.returncode == 2
    assert "connection refused" in result.stderr


def test_record_exits_zero_when_the_run_completes(fake, tmp_path):
    out = tmp_path / "run.timed.jsonl"
    result = record(fake.url, "slow:3", out)
    assert result.returncode == 0, result.stderr
    assert "None" not in result.stderr and "(done)" in result.stderr


def test_serve_names_the_product_once_in_its_start_up_line(tmp_path):
    server = LiveServer(tmp_path / "data").start()
    try:
        first = server.log_path.read_text().splitlines()[0]
    finally:
        server.stop()
    assert first == f"Streamscope listening on {server.url}/"


def _interrupted_record(base_url: str, model: str, out, signum: int, after_output: bool):
    """``record`` started, then sent ``signum``: after its first printed text, or once it is
    waiting for the upstream's first byte."""
    import os
    import time

    proc = subprocess.Popen(
        record_command(base_url, model, out),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=interruptible,
    )
    try:
        if after_output:
            assert proc.stdout is not None
            assert proc.stdout.read(1)  # the first token is printed
        else:
            deadline = time.monotonic() + 20
            while not (out.exists() and out.stat().st_size) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # connected, waiting for the first byte
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, stderr.decode()


@pytest.mark.parametrize(
    ("signame", "model", "after_output", "code", "why"),
    [
        ("SIGINT", "slow:100", True, 130, "interrupted (Ctrl-C)"),
        ("SIGTERM", "mute", False, 143, "terminated (SIGTERM)"),
        ("SIGINT", "mute", False, 130, "interrupted (Ctrl-C)"),
    ],
)
def test_record_stopped_by_a_signal_ends_its_recording_with_why(
    fake, tmp_path, signame, model, after_output, code, why
):
    """Ctrl-C (SIGINT) and SIGTERM end the recording with an end line saying why, print no
    traceback, and exit 130 and 143 as shells expect; what came before is kept. Before, Ctrl-C
    printed a KeyboardInterrupt traceback and left no end line, and SIGTERM while waiting for the
    first byte left an empty file."""
    import signal

    out = tmp_path / "run.timed.jsonl"
    returncode, stderr = _interrupted_record(
        fake.url, model, out, getattr(signal, signame), after_output
    )
    assert "Traceback" not in stderr
    assert returncode == code, stderr
    capture = read_capture(out.read_bytes())
    (stream,) = capture.streams
    assert stream.end_reason == "cancelled" and stream.end_error == why
    if after_output:
        assert stream.raw, "what came before the signal is kept"
    assert f"recorded to {out} (cancelled)" in stderr


def test_record_says_what_it_removed_before_writing(fake, tmp_path):
    """The key the upstream echoes is swept out of the file, and ``record`` says so as an
    upload's answer does (before, it said nothing)."""
    import os

    key = "sk-recordcanary0123456789abcdefghij"
    out = tmp_path / "run.timed.jsonl"
    result = record(
        fake.url,
        "echo-split",
        out,
        "--api-key-env",
        "RECORD_KEY",
        env={**os.environ, "RECORD_KEY": key},
    )
    assert key.encode() not in out.read_bytes() and b"[redacted" in out.read_bytes()
    assert "removed before writing: " in result.stderr, result.stderr
    assert key not in result.stderr + result.stdout
