"""What is said of an upload before its bytes are stored (a gzip that ends early) is said
everywhere, the cause first (issue 28, item 20): in the upload's answer, and in the capture's
page once it is read again from the store (kept as the capture's ``notes``, migration m008),
as ``inspect`` says it. Before, only the CLI said ``gzip_truncated``; the page showed the JSON
errors it caused."""

from __future__ import annotations

import gzip

from app.web import create_app

from .helpers import corpus

HOST = {"Host": "127.0.0.1:5000"}


def truncated() -> bytes:
    return gzip.compress(corpus("openai-gpt4o-tool-parallel.sse"))[:-40]


def test_a_truncated_gzip_is_said_first_in_the_answer_and_after_a_fresh_read(tmp_path):
    app = create_app({"data_dir": str(tmp_path / "data")})
    answer = app.test_client().post(
        "/api/captures", data=truncated(), headers={**HOST, "Content-Type": "application/gzip"}
    )
    assert answer.status_code == 201
    body = answer.get_json()
    assert body["diagnostics"][0]["code"] == "gzip_truncated"
    assert "json_error" in [d["code"] for d in body["diagnostics"]]  # what it caused, after

    # Another process (a new application on the same store) reads the stored bytes again.
    again = create_app({"data_dir": str(tmp_path / "data")}).test_client()
    document = again.get(
        f"/api/captures/{body['id']}/timeline", headers=HOST, buffered=True
    ).get_json()
    capture = document["messages"][0]
    assert capture["type"] == "capture"
    assert [d["code"] for d in capture["diagnostics"]][:1] == ["gzip_truncated"]
