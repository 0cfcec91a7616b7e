"""Uploads, storage and share links, in this process (the fast subset) and against a real
server (integration), each on a real SQLite file."""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import sqlite3
import threading
import time
import uuid

import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import corpus
from .inprocess import InProcess
from .live_server import ROOT, LiveServer


@pytest.fixture(
    scope="module",
    params=["in-process", pytest.param("dev-server", marks=pytest.mark.integration)],
)
def server(request, tmp_path_factory):
    """The app in this process (tests/inprocess.py), then a real server on loopback."""
    if request.param == "in-process":
        yield InProcess(tmp_path_factory.mktemp("api-inprocess"))
        return
    live = LiveServer(tmp_path_factory.mktemp("api-data")).start()
    yield live
    live.stop()


def request(
    server,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict | None = None,
    timeout: float = 60,
):
    if isinstance(server, InProcess):
        return server.request(method, path, body, headers)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def multipart(fields: dict[str, str], file: tuple[str, bytes] | None = None) -> tuple[bytes, dict]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        )
    if file:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file[0]}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            + file[1]
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def delete(server, answer: dict) -> int:
    """DELETE the capture of an upload answer with its delete token; the status."""
    path = f"/api/captures/{answer['id']}"
    return request(server, "DELETE", path, headers={"X-Delete-Token": answer["delete_token"]})[0]


def upload(server, data: bytes, **fields) -> tuple[int, dict]:
    body, headers = multipart(fields, ("capture.sse", data))
    status, _, answer = request(server, "POST", "/api/captures", body, headers)
    return status, json.loads(answer)


def test_upload_answers_with_what_was_found(server):
    status, answer = upload(
        server, corpus("openai-gpt4o-tool-parallel.sse"), title="Parallel tools", expires="7d"
    )
    assert status == 201
    assert set(answer) >= {
        "id",
        "url",
        "delete_token",
        "format",
        "streams",
        "redacted",
        "diagnostics",
    }
    assert len(answer["id"]) >= 22  # >= 128 bits, URL-safe
    assert answer["url"].endswith(f"/c/{answer['id']}")
    assert answer["format"] == "sse"
    assert answer["streams"][0]["finish_reasons"] == ["tool_calls"]
    assert answer["streams"][0]["model"] == "gpt-4o-2024-08-06"
    assert answer["expires"] > time.time() + 6 * 86400
    status, _headers, body = request(server, "GET", f"/api/captures/{answer['id']}")
    meta = json.loads(body)
    assert status == 200
    assert meta["title"] == "Parallel tools"
    assert meta["sha256"] == hashlib.sha256(corpus("openai-gpt4o-tool-parallel.sse")).hexdigest()
    assert meta["streams"][0]["usage"]["total_tokens"] == 209
    assert meta["stream_count"] == 1


def test_raw_body_and_pasted_text_uploads(server):
    data = corpus("mistral-small-text.sse")
    status, _, body = request(
        server, "POST", "/api/captures?title=raw", data, {"Content-Type": "text/event-stream"}
    )
    assert status == 201 and json.loads(body)["format"] == "sse"
    form, headers = multipart({"text": data.decode(), "title": "pasted"})
    status, _, body = request(server, "POST", "/api/captures", form, headers)
    assert status == 201 and json.loads(body)["title"] == "pasted"


def test_a_bom_and_cr_only_line_endings_upload_as_a_stream(server):
    data = b"\xef\xbb\xbf" + corpus("openai-gpt4o-tool-single.sse").replace(b"\n", b"\r")
    status, answer = upload(server, data, title="CR only")
    assert status == 201, answer
    assert answer["format"] == "sse"
    assert answer["streams"][0]["finish_reasons"] == ["tool_calls"]


def test_raw_download_is_plain_text_attachment_nosniff(server):
    data = corpus("openai-gpt4o-content-plain.sse")
    _, answer = upload(server, data)
    status, headers, body = request(server, "GET", f"/api/captures/{answer['id']}/raw")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    assert headers["content-disposition"].startswith("attachment;")
    assert headers["x-content-type-options"] == "nosniff"
    assert body == data


@pytest.mark.parametrize("kind", ["timed", "jsonl", "sse"])
def test_downloads_read_back_to_the_same_assembly(server, kind):
    data = corpus("openai-gpt4o-n3-choices.sse")
    _, answer = upload(server, data)
    status, headers, body = request(server, "GET", f"/api/captures/{answer['id']}/download/{kind}")
    assert status == 200 and headers["content-disposition"].startswith("attachment;")
    again = read_capture(body)
    assert again.format == {"timed": "timed", "jsonl": "jsonl", "sse": "sse"}[kind]
    original = plain(assemble(read_capture(data).streams[0].events))
    assert plain(assemble(again.streams[0].events))["choices"] == original["choices"]
    assert again.streams[0].timed is False  # converted captures do not pretend to have timing


def test_delete_flow(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"))
    path = f"/api/captures/{answer['id']}"
    assert request(server, "DELETE", path)[0] == 403
    status, _, body = request(server, "DELETE", path, headers={"X-Delete-Token": "wrong"})
    assert status == 403 and json.loads(body)["error"]["code"] == "bad_token"
    assert request(server, "GET", f"/c/{answer['id']}")[0] == 200
    assert delete(server, answer) == 204
    for gone in (path, f"/c/{answer['id']}", f"/embed/{answer['id']}", f"{path}/raw"):
        assert request(server, "GET", gone)[0] == 404, gone


def test_title_edit_needs_the_token_and_titles_are_escaped(server):
    _, answer = upload(
        server, corpus("openai-gpt4o-length.sse"), title='<script>alert("t")</script>'
    )
    status, _, page = request(server, "GET", f"/c/{answer['id']}")
    assert b'<script>alert("t")' not in page
    assert b"&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt;" in page
    patch = json.dumps({"title": "Renamed"}).encode()
    assert (
        request(
            server,
            "PATCH",
            f"/api/captures/{answer['id']}",
            patch,
            {"Content-Type": "application/json"},
        )[0]
        == 403
    )
    status, _, body = request(
        server,
        "PATCH",
        f"/api/captures/{answer['id']}",
        patch,
        {"Content-Type": "application/json", "X-Delete-Token": answer["delete_token"]},
    )
    assert status == 200 and json.loads(body)["title"] == "Renamed"


def test_share_pages_headers_and_previews(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"), title="Preview me")
    status, headers, page = request(server, "GET", f"/c/{answer['id']}")
    assert headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert b'<meta property="og:title" content="Preview me' in page
    assert (
        b'<meta name="description" content="A raw SSE capture (1 stream), replayed in Streamscope.">'
        in page
    )
    status, headers, _ = request(server, "GET", f"/embed/{answer['id']}")
    assert status == 200
    assert "frame-ancestors * file:" in headers["content-security-policy"]
    assert "x-frame-options" not in headers
    assert headers["referrer-policy"] == "no-referrer"


def test_expiry(server):
    _, answer = upload(server, corpus("openai-gpt4o-length.sse"), expires="1d")
    assert request(server, "GET", f"/c/{answer['id']}")[0] == 200
    with sqlite3.connect(server.data_dir / "streamscope.db") as db:
        db.execute("UPDATE captures SET expires = ? WHERE id = ?", (time.time() - 1, answer["id"]))
    assert request(server, "GET", f"/c/{answer['id']}")[0] == 404
    assert request(server, "GET", f"/api/captures/{answer['id']}")[0] == 404
    status, _, body = request(
        server,
        "POST",
        "/api/captures?expires=1y",
        corpus("openai-gpt4o-length.sse"),
        {"Content-Type": "text/plain"},
    )
    assert status == 400 and json.loads(body)["error"]["code"] == "bad_expires"


def test_bad_uploads_get_clear_errors_and_nothing_is_stored(server):
    status, answer = upload(server, b"<html><body>502 Bad Gateway</body></html>")
    assert status == 400
    assert answer["error"]["code"] == "html"
    status, answer = upload(server, b"")
    assert status == 400
    bomb = gzip.compress(b"data: " + b"a" * (300 * 1024 * 1024))
    status, answer = upload(server, bomb)
    assert status == 413 and answer["error"]["code"] == "too_large_decompressed"
    status, answer = upload(server, gzip.compress(corpus("openai-gpt4o-tool-single.sse")))
    assert status == 201 and answer["compression"] == "gzip"


PLANTED = {
    "authorization": "Bearer sk-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA01",
    "proxy": "Basic cHJveHk6c2VjcmV0MDI=",
    "api_key_header": "azure-key-secret-value-000000003",
    "x_api_key": "sk-ant-api03-BBBBBBBBBBBBBBBBBBBBBBBBBB04",
    "goog": "AIzaSyCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC05",
    "cookie": "session=cookie-secret-value-00000006",
    "set_cookie": "refresh=cookie-secret-value-00000007; HttpOnly",
    "req_cookie": "cookie-object-secret-value-000008",
    "resp_cookie": "cookie-object-secret-value-000009",
    "q_key": "query-key-secret-value-0000000010",
    "q_api_key": "query-apikey-secret-value-0000011",
    "q_access_token": "query-access-secret-value-000012",
    "q_token": "query-token-secret-value-00000013",
    "q_sig": "query-sig-secret-value-0000000014",
    "q_code": "query-code-secret-value-000000015",
    "body_sk": "sk-DDDDDDDDDDDDDDDDDDDDDDDDDDDDDD16",
    "body_proj": "sk-proj-EEEEEEEEEEEEEEEEEEEEEEEEEEEE17",
    "body_ant": "sk-ant-FFFFFFFFFFFFFFFFFFFFFFFFFFFF18",
    "body_goog": "AIzaSyGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG19",
    "body_jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQyMCJ9.c2lnbmF0dXJlLXNlY3JldC0yMA",
    "body_bearer": "Bearer tok-secret-value-in-a-body-0021",
    "stream_sk": "sk-HHHHHHHHHHHHHHHHHHHHHHHHHHHHHH22",
    "stream_jwt": "eyJhbGciOiJSUzI1NiJ9.eyJ1c2VyIjoic2VjcmV0MjMifQ.c2lnbmF0dXJlLXNlY3JldC0yMw",
    "mixed_case_auth": "Bearer sk-IIIIIIIIIIIIIIIIIIIIIIIIIIIIII24",
    "goog_header_lower": "AIzaSyJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJ25",
    "other_entry_auth": "Bearer other-entry-secret-value-0026",
    "other_entry_body": "sk-KKKKKKKKKKKKKKKKKKKKKKKKKKKKKK27",
    "url_user": "urluser-secret-value-00000000028",
    "postdata_key": "sk-proj-LLLLLLLLLLLLLLLLLLLLLLLLLLLL29",
    "b64_body_key": "sk-MMMMMMMMMMMMMMMMMMMMMMMMMMMMMM30",
}


def planted_har() -> bytes:
    import base64

    p = PLANTED
    stream = (
        'data: {{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":"key {} and {}"}}}}]}}\n\n'
        'data: {{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":"."}},"finish_reason":"stop"}}]}}\n\n'
        "data: [DONE]\n\n"
    ).format(p["stream_sk"], p["stream_jwt"])
    second = (
        'data: {{"choices":[{{"index":0,"delta":{{"content":"{}"}}}}]}}\n\ndata: [DONE]\n\n'.format(
            p["b64_body_key"]
        )
    ).encode()
    query = f"key={p['q_key']}&api_key={p['q_api_key']}&access_token={p['q_access_token']}&token={p['q_token']}&sig={p['q_sig']}&code={p['q_code']}"
    entry = {
        "startedDateTime": "2026-11-29T10:00:00Z",
        "request": {
            "method": "POST",
            "url": f"https://user:{p['url_user']}@api.example.com/v1/chat/completions?{query}",
            "headers": [
                {"name": "Authorization", "value": p["authorization"]},
                {"name": "proxy-authorization", "value": p["proxy"]},
                {"name": "API-KEY", "value": p["api_key_header"]},
                {"name": "x-api-key", "value": p["x_api_key"]},
                {"name": "X-Goog-Api-Key", "value": p["goog_header_lower"]},
                {"name": "cookie", "value": p["cookie"]},
                {"name": "AUTHORIZATION", "value": p["mixed_case_auth"]},
            ],
            "cookies": [{"name": "sid", "value": p["req_cookie"]}],
            "postData": {
                "mimeType": "application/json",
                "text": json.dumps(
                    {
                        "model": "gpt-x",
                        "note": f"{p['body_sk']} {p['body_proj']} {p['body_ant']} {p['body_goog']} {p['body_jwt']} {p['body_bearer']} {p['postdata_key']}",
                        "key": p["goog"],
                    }
                ),
            },
        },
        "response": {
            "status": 200,
            "headers": [
                {"name": "Set-Cookie", "value": p["set_cookie"]},
                {"name": "content-type", "value": "text/event-stream"},
            ],
            "cookies": [{"name": "refresh", "value": p["resp_cookie"]}],
            "content": {"mimeType": "text/event-stream", "text": stream},
        },
    }
    b64_entry = json.loads(json.dumps(entry))
    b64_entry["response"]["content"] = {
        "mimeType": "text/event-stream",
        "encoding": "base64",
        "text": base64.b64encode(second).decode(),
    }
    other = {
        "request": {
            "method": "GET",
            "url": "https://example.com/",
            "headers": [{"name": "authorization", "value": p["other_entry_auth"]}],
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {
                "mimeType": "application/json",
                "text": json.dumps({"k": p["other_entry_body"]}),
            },
        },
    }
    return json.dumps(
        {
            "log": {
                "version": "1.2",
                "creator": {"name": "test"},
                "entries": [entry, other, b64_entry],
            }
        }
    ).encode()


def test_thirty_planted_secrets_never_reach_the_data_directory(server, tmp_path):
    assert len(PLANTED) == 30
    har = planted_har()
    for name, secret in PLANTED.items():
        assert secret.encode() in har or name == "b64_body_key"  # that one hides in a base64 body
    status, answer = upload(server, har)
    assert status == 201, answer
    assert answer["format"] == "har"
    assert len(answer["streams"]) == 2
    assert answer["redacted"]
    kinds = {item["kind"] for item in answer["redacted"]}
    assert {"header authorization", "cookies", "query parameter key", "jwt"} <= kinds
    # The stream still reads, with the key in its text replaced.
    status, _, raw = request(server, "GET", f"/api/captures/{answer['id']}/raw")
    assert b"[redacted]" in raw
    # Nothing of any planted secret anywhere in the data directory (database, WAL, logs).
    time.sleep(0.2)
    found = []
    for path in server.data_dir.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            found += [
                (name, path.name) for name, secret in PLANTED.items() if secret.encode() in content
            ]
            assert (
                b"mRleCI6MCwiZGVsdGEiOnsiY29udGVudCI6InNrLU1N" not in content
            )  # nor the base64 body
    assert found == []
    # Not in the answer either.
    assert not [name for name, secret in PLANTED.items() if secret in json.dumps(answer)]


def test_concurrent_uploads_are_all_stored_whole(server):
    data = corpus("openai-gpt4o-content-logprobs.sse")
    results: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        body = data + f": upload {i}\n\n".encode()
        outcome = upload(server, body, title=f"concurrent {i}")
        with lock:
            results.append((i, outcome))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == 12
    for i, (status, answer) in results:
        assert status in (201, 503), answer
        if status == 503:
            assert answer["error"]["code"] == "busy"
            continue
        _, _, raw = request(server, "GET", f"/api/captures/{answer['id']}/raw")
        assert raw == data + f": upload {i}\n\n".encode()
    assert sum(1 for _, (status, _) in results if status == 201) >= 6


@pytest.mark.integration  # restarts a real server
def test_restart_keeps_everything(tmp_path):
    live = LiveServer(tmp_path / "data").start()
    try:
        status, answer = upload(live, corpus("openai-gpt4o-refusal.sse"), title="survives")
        assert status == 201
    finally:
        live.stop()
    again = LiveServer(tmp_path / "data").start()
    try:
        status, _, body = request(again, "GET", f"/api/captures/{answer['id']}")
        assert status == 200 and json.loads(body)["title"] == "survives"
        assert delete(again, answer) == 204
    finally:
        again.stop()


@pytest.mark.integration  # a real server's socket
def test_oversize_upload_gets_413_at_once_and_the_server_keeps_serving(tmp_path):
    live = LiveServer(tmp_path / "data", env={"STREAMSCOPE_MAX_UPLOAD_MB": "1"}).start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
        connection.putrequest("POST", "/api/captures")
        connection.putheader("Content-Type", "text/event-stream")
        connection.putheader("Content-Length", str(20 * 1024 * 1024))
        connection.endheaders()
        connection.send(b"data: x\n\n" * 100)  # a little of the 20 MB, then wait for the answer
        started = time.monotonic()
        response = connection.getresponse()
        body = json.loads(response.read())
        assert response.status == 413
        assert time.monotonic() - started < 5
        assert body["error"] == {
            "code": "too_large",
            "message": "the upload is over the 1 MB cap (STREAMSCOPE_MAX_UPLOAD_MB)",
        }
        connection.close()
        assert request(live, "GET", "/")[0] == 200
    finally:
        live.stop()


def test_busy_when_all_import_slots_are_taken(tmp_path, monkeypatch):
    # Unit level: the importer with no free slot answers "busy" after a short wait.
    from app.captures import Limits
    from app.services import uploads
    from app.storage import open_store
    from app.web.errors import Busy

    monkeypatch.setattr(uploads, "WAIT_FOR_SLOT", 0.1)
    store = open_store(f"sqlite:///{tmp_path / 'x.db'}")
    importer = uploads.Importer(store, Limits(), 1)
    with importer.slot(), pytest.raises(Busy), importer.slot():
        pass
    with importer.slot():
        imported = importer.run(
            corpus("openai-gpt4o-length.sse"), title=None, expires=None, fmt=None, name=None
        )
    assert imported.record.id
    store.close()


@pytest.mark.integration  # restarts a real server
def test_a_dialect_named_at_upload_sticks_with_the_stored_capture(tmp_path):
    """A wrong guess is fixed by naming the dialect; the stored capture keeps the name, so it
    reads the same after a restart (nothing cached) as in the upload's answer."""
    data = (ROOT / "tests/captures/dialects/anthropic-claude-haiku-4-5-tool-use.sse").read_bytes()
    with LiveServer(tmp_path / "data") as live:
        status, answer = upload(live, data, dialect="chat-completions")
        assert status == 201, answer
        assert answer["streams"][0]["dialect"] == "chat-completions"
        status, detected = upload(live, data)
        assert detected["streams"][0]["dialect"] == "anthropic-messages"
        status, wrong = upload(live, data, dialect="klingon")
        assert status == 400 and wrong["error"]["code"] == "bad_dialect"
    with LiveServer(tmp_path / "data") as again:
        status, _, body = request(again, "GET", f"/api/captures/{answer['id']}")
        meta = json.loads(body)
        assert meta["dialect"] == "chat-completions"
        assert meta["streams"][0]["dialect"] == "chat-completions"


def test_the_original_of_a_binary_capture_downloads_with_its_own_suffix(server):
    data = (
        ROOT / "tests/captures/dialects/bedrock-converse-nova-micro-text.eventstream"
    ).read_bytes()
    status, answer = upload(server, data)
    assert status == 201, answer
    path = f"/api/captures/{answer['id']}/download/original"
    status, headers, body = request(server, "GET", path)
    assert status == 200 and body == data
    assert headers["content-disposition"].endswith('.eventstream"')
