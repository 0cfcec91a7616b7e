"""The log filter: whoever logs, no query string, secret header value or key gets through."""

from __future__ import annotations

import io
import json
import logging

import pytest

from app.web import logs


@pytest.mark.parametrize(
    ("text", "kept", "gone"),
    [
        (
            'HTTP Request: POST http://127.0.0.1:5/v1?key=Q1/chat/completions "HTTP/1.1 200 OK"',
            "POST http://127.0.0.1:5/v1?[redacted]",
            "Q1",
        ),
        ('127.0.0.1 - - "GET /c/abc?token=Q2 HTTP/1.1" 200', "GET /c/abc?[redacted] HTTP", "Q2"),
        ("Authorization: Bearer abcdefgh12345678", "Authorization: [redacted]", "abcdefgh"),
        ("[(b'x-api-key', b'Q3secret'), (b'accept', b'*/*')]", "(b'accept', b'*/*')", "Q3secret"),
        ("connect to https://user:Q4@host.example/v1", "https://[redacted]@host.example/v1", "Q4"),
        ("upstream said sk-abcdefghijklmnop0123", "upstream said [redacted]", "sk-abc"),
        (
            "the server key protected-value-123 leaked",
            "the server key [redacted] leaked",
            "protected",
        ),
        ("what? nothing to hide", "what? nothing to hide", "[redacted]"),
    ],
)
def test_clean(text, kept, gone):
    logs.protect(["protected-value-123"])
    cleaned = logs.clean(text)
    assert kept in cleaned and gone not in cleaned, cleaned


def test_every_record_on_the_root_handler_is_cleaned_whoever_logs_it(monkeypatch):
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    logs.configure()
    out = io.StringIO()
    root.handlers[0].setStream(out)
    try:
        raise ValueError("failed for url 'http://h/v1?api_key=Q5'")
    except ValueError:
        logging.getLogger("somelibrary").exception("GET %s", "http://h/x?sig=Q6")
    logging.getLogger("httpx").info("HTTP Request: GET http://h/v1?key=Q7")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines == [
        {
            "ts": lines[0]["ts"],
            "level": "error",
            "logger": "somelibrary",
            "message": "GET http://h/x?[redacted]",
            "error": "ValueError: failed for url 'http://h/v1?[redacted]'",
        }
    ]  # and httpx, quieted to warnings, said nothing
