"""Recording a request with ``streamscope record`` (in this process, the real recording path)
and judging it with the rule catalogue: what tests/test_quirky_upstream.py and
tests/test_litellm_proxy.py share, and the confusion matrix they print."""

from __future__ import annotations

import base64
import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.captures import read_capture
from app.cli import main
from app.domain.rules import find

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
PROMPTS = {
    "plain": "Say hello.",
    "tools": "What is the weather in Paris? Use get_weather.",
    "parallel": "What is the weather in Paris and in Tokyo? Call get_weather for each, at once.",
}
JUDGED = ("warning", "error")  # info rules (reasoning-field, keepalive-comment, stall) aside


@dataclass
class Run:
    """One recorded request: the command's exit status and output, the capture's bytes, the
    warning and error rules its one stream triggered, and its payloads (JSON, or the text)."""

    status: int
    stderr: str
    data: bytes
    rules: frozenset[str]
    payloads: list[Any]


def record(base_url: str, model: str, kind: str, folder: Path, *extra: str) -> Run:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{model.replace('/', '_')}-{kind}.jsonl"
    argv = ["record", "--base-url", base_url, "--model", model, "--prompt", PROMPTS[kind]]
    argv += ["-o", str(out), *extra]
    if kind in ("tools", "parallel"):
        tools = folder / "tools.json"
        tools.write_text(json.dumps(TOOLS))
        argv += ["--tools", str(tools)]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(argv)
    data = out.read_bytes()
    capture = read_capture(data)
    assert len(capture.streams) == 1, (model, kind, capture.diagnostics)
    stream = capture.streams[0]
    rules = frozenset(f.rule for f in find(stream) if f.severity in JUDGED)
    return Run(status, stderr.getvalue(), data, rules, payloads_of(data))


def matrix(rows: dict[str, frozenset[str]], expected: dict[str, frozenset[str]]) -> str:
    """Rows (profile/kind) by the rules any row triggered or expects: ``X`` fired and expected,
    ``!`` fired unexpected (a false positive), ``-`` expected but missed, ``.`` neither."""
    columns = sorted(set().union(*rows.values(), *expected.values()))
    width = max(len(name) for name in rows) + 2
    head = " " * width + " ".join(f"{i:>2}" for i in range(len(columns)))
    lines = [head]
    for name, fired in rows.items():
        want = expected.get(name, frozenset())
        cells = []
        for column in columns:
            cell = {(True, True): "X", (True, False): "!", (False, True): "-"}.get(
                (column in fired, column in want), "."
            )
            cells.append(f"{cell:>2}")
        lines.append(f"{name:<{width}}" + " ".join(cells))
    lines.append("")
    lines += [f"{i:>2} = {column}" for i, column in enumerate(columns)]
    lines.append("X fired, as expected; ! fired, not expected; - expected, missed; . neither")
    return "\n".join(lines)


def payloads_of(data: bytes) -> list[Any]:
    """The ``data:`` payloads of a timed capture's body (its reads joined), JSON where they
    parse (``[DONE]`` stays a string)."""
    body = b""
    for line in data.splitlines():
        record = json.loads(line)
        if record.get("type") == "read":
            body += (
                record["text"].encode() if "text" in record else base64.b64decode(record["base64"])
            )
    payloads: list[Any] = []
    for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        for field in event.split(b"\n"):
            if field.startswith(b"data:"):
                text = field[5:].strip().decode()
                try:
                    payloads.append(json.loads(text))
                except ValueError:
                    payloads.append(text)
    return payloads
