"""Issue 15, deploying (docs/deploy.md): the shipped nginx config (docs/nginx.conf), run as it
is by Debian's nginx (as an unprivileged user, with a temporary prefix, on free loopback
ports), in front of two real ``streamscope serve --production`` processes sharing PostgreSQL.
Only the addresses and the cache folder are changed: a page loads, a timeline is served and
its second request is a cache hit at nginx, a websocket upgrade works through it, /healthz
answers, and with one process stopped requests still succeed."""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from .helpers import corpus
from .live_server import ROOT, LiveServer, free_port
from .postgres_server import PostgresServer
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

NGINX = "/usr/sbin/nginx"
CONFIG = ROOT / "docs" / "nginx.conf"
UNPRIVILEGED = "nobody"


def site(port: int, upstreams: list[int], cache: Path) -> str:
    """docs/nginx.conf with this test's addresses and cache folder, each change checked."""
    text = CONFIG.read_text()
    changes = [
        (r"listen 80;", f"listen 127.0.0.1:{port};"),
        (r"server 127\.0\.0\.1:5001 ", f"server 127.0.0.1:{upstreams[0]} "),
        (r"server 127\.0\.0\.1:5002 ", f"server 127.0.0.1:{upstreams[1]} "),
        (r"/var/cache/nginx/streamscope", str(cache)),
    ]
    for pattern, replacement in changes:
        text, n = re.subn(pattern, replacement, text)
        assert n == 1, f"docs/nginx.conf no longer has {pattern!r} once"
    return text


def main_config(prefix: Path, site_file: Path) -> str:
    """The nginx.conf around the site, as Debian's includes conf.d/ from its http block."""
    temp = "\n".join(
        f"    {name}_temp_path {prefix / name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} info;
events {{ worker_connections 512; }}
http {{
    access_log {prefix / "access.log"};
{temp}
    include {site_file};
}}
"""


class Nginx:
    def __init__(self, port: int, upstreams: list[int]) -> None:
        self.prefix = Path(tempfile.mkdtemp(prefix="streamscope-nginx-"))
        self.port = port
        site_file = self.prefix / "streamscope.conf"
        site_file.write_text(site(self.port, upstreams, self.prefix / "cache"))
        self.config = self.prefix / "nginx.conf"
        self.config.write_text(main_config(self.prefix, site_file))
        self.process: subprocess.Popen | None = None
        if os.geteuid() == 0:  # run as an unprivileged user, as a packaged nginx's workers do
            user = pwd.getpwnam(UNPRIVILEGED)
            for path in [self.prefix, *self.prefix.iterdir()]:
                os.chown(path, user.pw_uid, user.pw_gid)

    def command(self, *args: str) -> list[str]:
        base = [NGINX, "-p", str(self.prefix), "-e", str(self.prefix / "error.log")]
        base += ["-c", str(self.config), *args]
        return ["runuser", "-u", UNPRIVILEGED, "--", *base] if os.geteuid() == 0 else base

    def test_config(self) -> subprocess.CompletedProcess:
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=30)

    def start(self) -> Nginx:
        self.process = subprocess.Popen(
            self.command("-g", "daemon off;"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.process.stderr.read().decode()
            with contextlib.suppress(OSError):
                if get(self.port, "/healthz")[0] in (200, 502, 503):
                    return self
            time.sleep(0.1)
        raise RuntimeError("nginx did not answer in 15 s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # nginx: fast shutdown on TERM
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process and self.process.stderr:
            self.process.stderr.close()
        shutil.rmtree(self.prefix, ignore_errors=True)


def get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    return send(port, "GET", path, None, headers)


def send(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    if not Path(NGINX).exists():
        pytest.fail("nginx not found: run the README's test command, which installs it")
    postgres = PostgresServer().start()
    proxy_port = free_port()
    env = {
        "STREAMSCOPE_DATABASE_URL": postgres.url,
        "STREAMSCOPE_ALLOWED_HOSTS": f"127.0.0.1:{proxy_port}",
    }
    servers = []
    nginx = None
    try:
        for name in ("a", "b"):
            servers.append(
                LiveServer(
                    tmp_path_factory.mktemp(f"deploy-{name}"),
                    extra_args=["--production", "--threads", "16"],
                    env=env,
                ).start()
            )
        nginx = Nginx(proxy_port, [s.port for s in servers])
        yield nginx, servers
    finally:
        if nginx is not None:
            nginx.stop()
        for server in servers:
            server.stop()
        postgres.stop()


def upload(port: int, name: str) -> dict:
    status, _, body = send(
        port,
        "POST",
        f"/api/captures?title={name}",
        corpus(name),
        {"Content-Type": "text/event-stream"},
    )
    assert status == 201, body
    return json.loads(body)


def test_the_config_passes_nginx_t(deployment):
    nginx, _ = deployment
    done = nginx.test_config()
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr and "test is successful" in done.stderr


def test_pages_timelines_websockets_and_healthz_through_nginx(deployment):
    nginx, servers = deployment
    nginx.start()
    port = nginx.port
    # /healthz, answered by the processes behind it.
    status, _, body = get(port, "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok"
    # A capture uploaded through nginx; its page loads, naming its immutable timeline URL.
    answer = upload(port, "openai-gpt4o-tool-parallel.sse")
    status, _, page = get(port, f"/c/{answer['id']}")
    assert status == 200
    url = re.search(rb'data-timeline-url="([^"]+)"', page).group(1).decode()
    # The timeline: the first request goes to Streamscope, the second is nginx's copy.
    status, first, body = get(port, url, **{"Accept-Encoding": "gzip"})
    assert status == 200 and first["x-cache-status"] == "MISS"
    assert first["cache-control"] == "public, max-age=31536000, immutable"
    assert first["content-encoding"] == "gzip" and first["vary"] == "Accept-Encoding"
    status, second, again = get(port, url, **{"Accept-Encoding": "gzip"})
    assert status == 200 and second["x-cache-status"] == "HIT"
    assert again == body and second["etag"] == first["etag"]
    doc = json.loads(gzip.decompress(body))
    assert doc["messages"][0]["type"] == "capture" and doc["messages"][-1]["type"] == "end"
    # Another coding is another variant (Vary), not the gzip bytes.
    status, plain, raw = get(port, url)
    assert status == 200 and "content-encoding" not in plain and json.loads(raw) == doc
    # What can change is not kept: the unversioned URL goes to Streamscope every time.
    bare = f"/api/captures/{answer['id']}/timeline"
    for _ in range(2):
        assert get(port, bare)[1]["x-cache-status"] == "MISS"
    # The websocket upgrade through nginx: a demo replayed to its end.
    ws = connect(port)
    try:
        hello = json.loads(ws.receive(timeout=10))
        assert hello["type"] == "hello"
        ws.send(json.dumps({"type": "open", "source": {"demo": "plain-text"}}))
        types = []
        while not types or types[-1] not in ("end", "error"):
            message = ws.receive(timeout=10)
            assert message is not None, types
            types.append(json.loads(message)["type"])
        assert types[0] == "capture" and types[-1] == "end"
    finally:
        ws.close()
    # Both processes served requests.
    for server in servers:
        assert '"path": "/healthz"' in server.log() or '"path": "/c/' in server.log()


def test_viewers_opening_one_capture_at_once_cost_the_processes_one_request(deployment):
    nginx, servers = deployment
    if nginx.process is None:
        nginx.start()
    answer = upload(nginx.port, "openai-gpt4o-long-content.sse")
    page = get(nginx.port, f"/c/{answer['id']}")[2]
    url = re.search(rb'data-timeline-url="([^"]+)"', page).group(1).decode()
    statuses: list[tuple[int, str]] = []
    start = threading.Barrier(20)

    def viewer() -> None:
        start.wait()
        status, headers, _ = get(nginx.port, url, **{"Accept-Encoding": "gzip, deflate, br, zstd"})
        statuses.append((status, headers["x-cache-status"]))

    threads = [threading.Thread(target=viewer) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(statuses) == 20 and {s for s, _ in statuses} == {200}
    path = f'"path": "/api/captures/{answer["id"]}/timeline"'
    assert sum(server.log().count(path) for server in servers) == 1, statuses


def test_one_process_down_the_other_serves(deployment):
    nginx, servers = deployment
    if nginx.process is None:
        nginx.start()
    answer = upload(nginx.port, "openai-gpt4o-length.sse")
    servers[0].stop()
    for _ in range(6):  # round robin would send every other request to the stopped one
        assert get(nginx.port, f"/c/{answer['id']}")[0] == 200
        status, _, body = get(nginx.port, "/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok"
