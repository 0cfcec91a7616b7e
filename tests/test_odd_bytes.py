"""Odd bytes in every route's parameters and headers get a 4xx in the usual error shape, never a
500 (issue 26, items 5 and 6; docs/security.md, "Odd bytes").

Before: a ``Host`` ending in ``²`` (``str.isdigit()`` takes it, ``int()`` does not) was a 500
on every path, and so were raw pages with ``?start=²``, a ``Content-Length: ²``, a base URL
``http://[::1`` on ``/api/models`` and ``/api/live/preview`` (``internal`` on a websocket
``start``) and an ``api_key`` of ``²``; a NUL in a proxied call's ``x-api-key`` was a 502 whose
message quoted the key, stored in the recording, the calls list and the WAL.

The fuzz goes through the app's own URL map, so a route added later is covered: each path
variable, a set of query parameters and headers, and each JSON field the API reads, in turn
set to each odd value."""

from __future__ import annotations

import json
import tempfile

import pytest

from app.live.runconfig import RunConfigError
from app.storage import NewCapture
from app.web import create_app
from app.web.context import services_of

HOST = "127.0.0.1:5000"
ODD = [
    "\u00b2",  # a superscript two: isdigit() but not int()
    "\u0663",  # an Arabic-Indic three
    "\ud800",  # a lone surrogate
    "\x00",
    "[",
    "]",
    "{",
    "http://[::1",
    "%zz",
    "../..",
    "-1",
    "9" * 40,
]
QUERY = (
    "t",
    "start",
    "stream",
    "count",
    "v",
    "raw",
    "speed",
    "choice",
    "token",
    "a",
    "b",
    "theme",
    "zoom",
    "proxy_token",
)
HEADERS = ("If-None-Match", "Accept-Encoding", "X-Delete-Token", "X-Filename", "Origin", "Range", "X-Streamscope-Proxy-Token", "Sec-WebSocket-Protocol")  # fmt: skip
FIELDS = ("base_url", "api_key", "api_key_env", "api", "model", "title", "label", "note", "t", "stream", "event", "capture", "expires", "format", "dialect")  # fmt: skip


@pytest.fixture(scope="module")
def app():
    folder = tempfile.mkdtemp(prefix="odd-bytes-")
    app = create_app({"data_dir": folder, "proxy_upstreams": "local=http://127.0.0.1:9"})
    record, _ = services_of(app).store.add(
        NewCapture(data=b'data: {"choices":[]}\n\n', title="t", format="sse", streams=1)
    )
    app.config["CAPTURE"] = record.id
    return app


def routes(app) -> list[tuple[str, str, list[str]]]:
    """Each rule with a method it answers and its variables."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((rule.rule, method, sorted(rule.arguments)))
    return found


def fill(rule: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        for form in (f"<{name}>", f"<path:{name}>"):
            rule = rule.replace(form, value)
    return rule


def quoted(value: str) -> str:
    from urllib.parse import quote

    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def check(response, what: str) -> None:
    if busy(response):
        return  # a capacity answer, not the bytes' doing
    assert response.status_code < 500, (what, response.status_code, response.data[:300])
    if response.status_code >= 400 and response.mimetype == "application/json":
        error = response.get_json()["error"]
        assert isinstance(error["code"], str) and isinstance(error["message"], str), what


def busy(response) -> bool:
    """A 503 that says the server is at a cap (``Busy``: its code ``busy`` or ``<what>_busy``).
    The fuzz's valid bodies really start what they ask for: ``POST /api/conform`` starts a
    battery (against a port nothing listens on, so it ends at once), and while two run a third
    is refused with 503 ``conform_busy``, as it should be."""
    if response.status_code != 503 or response.mimetype != "application/json":
        return False
    code = response.get_json()["error"]["code"]
    return code == "busy" or code.endswith("_busy")


def requests(app):
    capture = app.config["CAPTURE"]
    for rule, method, arguments in routes(app):
        good = {name: (capture if "id" in name else "x") for name in arguments}
        for odd in ODD:
            for name in arguments:  # each path variable
                yield method, fill(rule, {**good, name: quoted(odd)}), {}, None
            path = fill(rule, good)
            for name in QUERY:
                yield method, f"{path}?{name}={quoted(odd)}", {}, None
            for name in HEADERS:
                yield (
                    method,
                    path,
                    {name: odd.encode("utf-8", "surrogatepass").decode("latin-1")},
                    None,
                )
            yield method, path, {"Host": f"{HOST}{odd}"}, None
            if method in ("POST", "PATCH", "PUT"):
                for name in FIELDS:
                    yield (
                        method,
                        path,
                        {},
                        {name: odd, "base_url": "http://127.0.0.1:9/v1", **({name: odd})},
                    )


@pytest.mark.slow  # every route, parameter and header, each odd value: exhaustive
def test_no_route_answers_odd_bytes_with_a_500(app):
    client = app.test_client()
    count = 0
    for method, url, headers, body in requests(app):
        kwargs = {"headers": {"Host": HOST, **headers}, "buffered": True}
        if body is not None:
            kwargs["data"] = json.dumps(body, ensure_ascii=True)
            kwargs["content_type"] = "application/json"
        response = client.open(url, method=method, **kwargs)
        check(response, f"{method} {url} {headers} {body}")
        count += 1
    assert count > 2000


@pytest.mark.parametrize("length", ["\u00b2", "\u0663", "1e3", "-5", " 12x"])
def test_a_content_length_that_is_not_ascii_digits_is_400(app, length):
    response = app.test_client().post(
        "/api/captures",
        data=b"x",
        headers={"Host": HOST},
        environ_overrides={"CONTENT_LENGTH": length},
    )
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "bad_length"


@pytest.mark.parametrize("start", ["\u00b2", "\u0663", "1\u00b2"])
def test_a_raw_page_start_that_is_not_ascii_digits_is_400(app, start):
    capture = app.config["CAPTURE"]
    response = app.test_client().get(
        f"/api/captures/{capture}/timeline/raw?stream=0&start={quoted(start)}",
        headers={"Host": HOST},
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "bad_raw_request"


def test_a_host_with_a_superscript_port_is_400_bad_host(app):
    response = app.test_client().get("/", headers={"Host": "127.0.0.1:5000\u00b2"})
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"base_url": "http://[::1"}, "base_url must be an http(s) URL"),
        ({"base_url": "http://127.0.0.1:99999/v1"}, "base_url must be an http(s) URL"),
        ({"base_url": "http://127.0.0.1:x/v1"}, "base_url must be an http(s) URL"),
        ({"base_url": "http://127.0.0.1:9/v1", "api_key": "\u00b2"}, "api_key: character 0"),
        ({"base_url": "http://127.0.0.1:9/v1", "api_key": "sk-abc\x00def"}, "U+0000"),
        ({"base_url": "http://127.0.0.1:9/v1", "headers": {"X-A": "a\nb"}}, "header X-A"),
        ({"base_url": "http://127.0.0.1:9/v1", "headers": {"X A": "v"}}, "not an HTTP token"),
    ],
)
def test_a_run_config_with_odd_bytes_is_refused_with_why_and_without_the_value(app, config, words):
    """The websocket ``start`` and ``/api/models`` read the same config (runconfig.py)."""
    body = {"model": "m", "messages": []}
    with app.app_context():
        live = services_of(app).live
        with pytest.raises(RunConfigError) as refused:
            live.request({**config, "body": body})
    assert words in str(refused.value)
    for secret in ("sk-abc", "def"):
        assert secret not in str(refused.value)
    response = app.test_client().post("/api/models", json=config, headers={"Host": HOST})
    assert response.status_code == 400, response.data


# ------------------------------------------------------------------ on real servers
NUL_KEY = "sk-nul-canary-7d6c5b4a3f2e1d0c"


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["dev", "production"])
def test_odd_bytes_in_raw_requests_are_4xx_on_both_servers(tmp_path, fake, mode):
    """As a client writes them: the byte 0xB2 in a Host and a Content-Length; and a NUL inside
    a proxied call's ``x-api-key``, whose 502 quoted the key before and stored it."""
    from .live_server import LiveServer
    from .proxy_helpers import calls, nowhere, root
    from .rawhttp import exchange

    args = ["--proxy", f"local={root(fake)}"] + (["--production"] if mode == "production" else [])
    with LiveServer(tmp_path / "data", args) as live:
        port = live.port
        odd_host = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\xb2\r\n\r\n".encode("latin-1")
        assert exchange(port, odd_host).status == 400
        odd_length = (
            f"POST /api/captures HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: text/event-stream\r\nContent-Length: \xb2\r\n\r\n"
        ).encode("latin-1")
        assert exchange(port, odd_length).status == 400
        body = b'{"model":"replay:openai-gpt4o-content-logprobs.sse","stream":true}'
        nul = (
            f"POST /proxy/local/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"x-api-key: {NUL_KEY[:10]}\x00{NUL_KEY[10:]}\r\n\r\n"
        ).encode("latin-1") + body
        answer = exchange(port, nul)
        assert answer.status == 400, answer
        if mode == "dev":  # gunicorn refuses such a head itself, naming only the header
            error = json.loads(answer.body)["error"]
            assert error["code"] == "bad_header", error
            assert "x-api-key" in error["message"].lower() and "U+0000" in error["message"]
        assert NUL_KEY[:10].encode() not in answer.body and NUL_KEY[11:].encode() not in answer.body
        assert all(NUL_KEY[11:] not in json.dumps(c) for c in calls(live))
        nowhere(live, NUL_KEY[11:], NUL_KEY[:10])
