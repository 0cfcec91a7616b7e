"""The recording proxy behind the shipped nginx config (docs/nginx.conf, docs/proxy.md): a
streamed call through nginx reaches the app read by read, as the upstream writes it, not once
nginx has buffered the answer; a call the proxy answers 502 is not tried again on another
process (the proxy never retries: the app decides)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from .live_server import free_port
from .proxy_helpers import KEY, proxy_server, writes
from .test_deploy_nginx import NGINX, Nginx

pytestmark = pytest.mark.integration  # starts real servers on loopback


@pytest.fixture(scope="module")
def behind_nginx(tmp_path_factory, fake):
    if not Path(NGINX).exists():
        pytest.fail("nginx not found: run the README's test command, which installs it")
    port = free_port()
    env = {"STREAMSCOPE_ALLOWED_HOSTS": f"127.0.0.1:{port}"}
    down = ["--proxy", f"down=http://127.0.0.1:{free_port()}"]  # nothing listens there
    server = proxy_server(
        tmp_path_factory.mktemp("proxy-nginx"),
        fake,
        *down,
        "--production",
        "--threads",
        "16",
        env=env,
    ).start()
    nginx = None
    try:
        nginx = Nginx(port, [server.port, server.port]).start()
        yield nginx, server
    finally:
        if nginx is not None:
            nginx.stop()
        server.stop()


def test_a_streamed_call_through_nginx_arrives_as_the_upstream_writes_it(behind_nginx, fake):
    nginx, _ = behind_nginx
    url = f"http://127.0.0.1:{nginx.port}/proxy/local/v1/chat/completions"
    before = len(fake.requests)
    written_at_first_read = None
    got = []
    with (
        httpx.Client(timeout=60) as client,
        client.stream(
            "POST",
            url,
            json={"model": "slow:20", "stream": True},  # a chunk every 100 ms
            headers={"Authorization": f"Bearer {KEY}"},
        ) as answer,
    ):
        assert answer.status_code == 200
        for piece in answer.iter_raw():
            if written_at_first_read is None:
                written_at_first_read = len(writes(fake.requests[-1]))
            got.append(piece)
    assert len(fake.requests) == before + 1
    sent = fake.requests[-1]
    assert b"".join(got) == b"".join(writes(sent))
    assert json.loads(writes(sent)[0].removeprefix(b"data: "))["choices"]
    # the first read came while the upstream still had most of its answer to write
    assert written_at_first_read is not None and written_at_first_read < 10, written_at_first_read


def test_a_call_the_proxy_answers_502_is_not_tried_again_behind_nginx(behind_nginx):
    nginx, server = behind_nginx
    with httpx.Client(timeout=60) as client:
        answer = client.get(f"http://127.0.0.1:{nginx.port}/proxy/down/v1/models")
        assert answer.status_code == 502
        assert answer.json()["error"]["code"] == "upstream_unreachable"
        listed = client.get(f"{server.url}/api/proxy/calls").json()["calls"]
    assert [c["upstream"] for c in listed].count("down") == 1, listed
