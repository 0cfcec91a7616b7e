"""The inspect command, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

from app.cli import main

from .helpers import capture_path


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], input=stdin, capture_output=True, timeout=60
    )


def test_inspect_json_shape_for_the_seed():
    result = run("inspect", str(capture_path("chat-completion-chunk-docs.txt")), "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["format"] == "docs"
    assert len(document["streams"]) == 2
    first = document["streams"][0]
    assert set(first) >= {"completion", "metrics", "diagnostics", "errors"}
    completion = first["completion"]
    assert completion["object"] == "chat.completion"
    message = completion["choices"][0]["message"]
    assert set(message) >= {"role", "content", "refusal", "tool_calls"}
    assert message["content"] == "This is"
    assert completion["usage"]["total_tokens"] == 12
    assert first["metrics"]["ttft_ms"] is None


def test_inspect_text_report_shows_tool_calls_and_validity():
    result = run("inspect", str(capture_path("chat-completion-chunk-docs.txt")))
    assert result.returncode == 0
    text = result.stdout.decode()
    assert (
        "tool call 0: func (id call_TARbemDG9CFdwuoaQBTRXiYK) - INVALID JSON: incomplete JSON"
        in text
    )
    assert "timing: unknown" in text
    parallel = run("inspect", str(capture_path("openai-gpt4o-tool-parallel.sse"))).stdout.decode()
    assert '"ticker": "AAPL"' in parallel and "valid JSON" in parallel


def test_inspect_reasoning_and_errors_are_reported():
    text = run(
        "inspect", str(capture_path("groq-gptoss-event-error-midstream.sse"))
    ).stdout.decode()
    assert "reasoning (reasoning):" in text
    assert "STREAM ERROR: Tool call validation failed" in text


def test_exit_status_two_when_nothing_was_read(tmp_path):
    empty = tmp_path / "empty.sse"
    empty.write_bytes(b"")
    result = run("inspect", str(empty), "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["diagnostics"][0]["code"] == "empty"
    missing = run("inspect", str(tmp_path / "nope.sse"))
    assert missing.returncode == 2
    assert b"cannot read" in missing.stderr
    assert b"Traceback" not in missing.stderr


def test_stdin_and_forced_format(capsys):
    data = capture_path("mistral-small-text.sse").read_bytes()
    result = run("inspect", "-", "--format", "sse", "--json", stdin=data)
    assert json.loads(result.stdout)["format"] == "sse"
    assert main(["inspect", str(capture_path("mistral-small-text.sse"))]) == 0
    assert "format sse" in capsys.readouterr().out


def test_inspect_detects_a_bom_and_cr_only_line_endings(tmp_path):
    path = tmp_path / "cr.sse"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + capture_path("openai-gpt4o-tool-single.sse").read_bytes().replace(b"\n", b"\r")
    )
    result = run("inspect", str(path), "--json")
    assert result.returncode == 0, result.stdout
    document = json.loads(result.stdout)
    assert document["format"] == "sse"
    assert document["streams"][0]["completion"]["choices"][0]["finish_reason"] == "tool_calls"


def test_inspect_shows_har_timings_and_says_where_they_came_from(tmp_path):
    from .test_readers import har_entry, timed_har, with_timings

    path = tmp_path / "devtools.har"
    path.write_bytes(
        timed_har(with_timings(har_entry(capture_path("mistral-small-text.sse").read_bytes())))
    )
    text = run("inspect", str(path)).stdout.decode()
    assert "timing: from the HAR entry's timings (started 2026-11-29T10:00:00.123Z)" in text
    assert "TTFT 312.0 ms, E2EL 1,512.0 ms" in text
    metrics = json.loads(run("inspect", str(path), "--json").stdout)["streams"][0]["metrics"]
    assert (metrics["ttft_ms"], metrics["e2el_ms"], metrics["timing_source"]) == (312, 1512, "har")


def test_version_is_the_package_version():
    import tomllib

    from app import __version__

    result = run("--version")
    assert result.returncode == 0
    project = tomllib.loads((capture_path("x").parents[2] / "pyproject.toml").read_text())
    assert result.stdout.decode().strip() == f"streamscope {__version__}"
    assert __version__ == project["project"]["version"]


def test_every_option_of_every_command_has_help_text():
    import argparse

    from app.cli import build_parser

    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in commands.choices.items():
        for action in command._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)


def sse_lines(*payloads: dict | str) -> bytes:
    return b"".join(
        b"data: " + (p.encode() if isinstance(p, str) else json.dumps(p).encode()) + b"\n\n"
        for p in payloads
    )


GEMINI_LIVE = sse_lines(
    {"setupComplete": {}},
    {"serverContent": {"modelTurn": {"parts": [{"text": "Hi"}]}}},
    {"serverContent": {"turnComplete": True}, "usageMetadata": {"promptTokenCount": 3}},
)
VERCEL_UI = sse_lines(
    {"type": "start", "messageId": "m1"},
    {"type": "text-start", "id": "t1"},
    {"type": "text-delta", "id": "t1", "delta": "Hi"},
    {"type": "text-end", "id": "t1"},
    {"type": "finish"},
    "[DONE]",
)
MCP = sse_lines(
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}},
    {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "Hi"}]}},
)


def test_gemini_live_messages_are_no_known_dialect_and_inspect_exits_two(tmp_path):
    path = tmp_path / "live.sse"
    path.write_bytes(GEMINI_LIVE)
    result = run("inspect", str(path), "--json")
    assert result.returncode == 2, result.stderr
    (stream,) = json.loads(result.stdout)["streams"]
    assert stream["dialect"] is None
    assert "Gemini Live API" in stream["dialect_reason"]
    assert [d["code"] for d in stream["diagnostics"]] == ["unknown_dialect"]
    named = run("inspect", str(path), "--dialect", "gemini")
    assert named.returncode == 0  # read as the user says


def test_an_unknown_dialect_is_said_first_with_what_it_looks_like_and_how_to_read_it(tmp_path):
    for data, looks in ((VERCEL_UI, "Vercel AI SDK UI message stream"), (MCP, "JSON-RPC 2.0")):
        path = tmp_path / "unknown.sse"
        path.write_bytes(data)
        result = run("inspect", str(path))
        assert result.returncode == 2
        lines = result.stdout.decode().splitlines()
        heading = next(i for i, line in enumerate(lines) if line.startswith("Stream 1 "))
        first = lines[heading + 1]
        assert first.strip().startswith("Not read: no known dialect sends these payloads")
        assert looks in first and "--dialect" in first and "openai-responses" in first
        document = json.loads(run("inspect", str(path), "--json").stdout)
        assert document["streams"][0]["dialect_reason"] == first.strip()
    plain = tmp_path / "plain.sse"
    plain.write_bytes(sse_lines({"kind": "x", "value": 1}, {"kind": "y"}))
    text = run("inspect", str(plain)).stdout.decode()
    assert "its payloads are objects with kind, value" in text


def test_a_reader_that_goes_away_ends_the_command_quietly():
    """``streamscope conform --list | head -1``: the pipe's reader closes it after one line; the
    command ends with 141 (128 + SIGPIPE) and no traceback (it printed BrokenPipeError's before)."""
    command = [sys.executable, "-m", "app.cli", "conform", "--list"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line is written
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
