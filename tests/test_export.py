"""Issue 14, the static export: ``streamscope export`` from a file, a demo and a server, the
file's CSP (hashes that match its one script and one style), capture text kept as inert JSON,
and the bundler refusing what it cannot read."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from app.protocol import VERSION
from app.standalone.bundle import BundleError, bundle

from .helpers import corpus
from .live_server import LiveServer
from .test_api import upload

pytestmark = pytest.mark.integration  # the --server export starts a real server

ROOT = Path(__file__).resolve().parent.parent


def export(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "export", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        **kwargs,
    )


def parts(page: str) -> dict:
    """The file's CSP, its inline script and style, and its JSON data."""
    csp = html.unescape(
        re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)[1]
    )
    script = re.search(r'<script type="module">(.*?)</script>', page, re.S)[1]
    style = re.search(r"<style>(.*?)</style>", page, re.S)[1]
    data = re.search(
        r'<script type="application/json" id="streamscope-data">(.*?)</script>', page, re.S
    )[1]
    return {"csp": csp, "script": script, "style": style, "data": data}


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_export_a_file_with_a_hash_only_csp(tmp_path):
    out = tmp_path / "player.html"
    result = export(str(ROOT / "tests/captures/openai-gpt4o-tool-parallel.sse"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert re.search(
        r"wrote .*player\.html: [\d,]+ bytes \(capture [\d,]+, its timeline", result.stderr
    )
    page = out.read_text()
    found = parts(page)
    directives = dict(d.strip().split(" ", 1) for d in found["csp"].split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == sha256(found["script"])
    assert directives["style-src"] == sha256(found["style"])
    assert directives["img-src"] == "data:"
    assert "unsafe" not in found["csp"]
    assert page.count("<script") == 2 and '<link rel="stylesheet"' not in page
    assert 'src="/' not in page and 'href="/' not in page  # nothing from a server
    data = json.loads(found["data"])
    assert data["timeline"]["version"] == VERSION and data["markers"] == []  # the protocol's
    assert data["timeline"]["messages"][0]["title"] == "openai-gpt4o-tool-parallel.sse"
    assert sum(len(m["items"]) for m in data["timeline"]["raw"]) == len(
        data["timeline"]["messages"][1]["t"]
    )


def test_capture_text_is_inert_json_in_the_file(tmp_path):
    nasty = '</script><script>alert(1)</script><!-- & "quotes"'
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": nasty}}],
    }
    capture = tmp_path / "nasty.sse"
    capture.write_text(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")
    out = tmp_path / "nasty.html"
    assert export(str(capture), "-o", str(out)).returncode == 0
    page = out.read_text()
    data = parts(page)["data"]
    assert "<" not in data and ">" not in data and "&" not in data
    events = [
        e
        for m in json.loads(data)["timeline"]["messages"]
        if m["type"] == "events"
        for e in m["events"]
    ]
    assert "".join(e.get("text", "") for e in events if e["kind"] == "text") == nasty


def test_export_a_demo_and_errors_that_say_why(tmp_path):
    out = tmp_path / "demo.html"
    result = export("demos/tool-calls-parallel", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert (
        json.loads(parts(out.read_text())["data"])["timeline"]["messages"][0]["source"]["name"]
        == "tool-calls-parallel"
    )
    result = export("demos/nope", "-o", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "no demo named 'nope'" in result.stderr
    result = export(str(tmp_path / "missing.sse"), "-o", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "cannot read" in result.stderr
    (tmp_path / "empty.sse").write_text("")
    result = export(str(tmp_path / "empty.sse"), "-o", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "no stream" in result.stderr
    assert not (tmp_path / "x.html").exists()


def test_export_a_stored_capture_from_a_server_with_its_markers(tmp_path):
    server = LiveServer(tmp_path / "data").start()
    try:
        status, answer = upload(
            server, corpus("openai-gpt4o-tool-parallel.sse"), title="From the server"
        )
        assert status == 201
        request = urllib.request.Request(
            f"{server.url}/api/captures/{answer['id']}/markers",
            data=json.dumps({"event": 2, "label": "a moment", "note": "why"}).encode(),
            headers={"Content-Type": "application/json", "X-Delete-Token": answer["delete_token"]},
            method="POST",
        )
        marker = json.loads(urllib.request.urlopen(request, timeout=30).read())
        out = tmp_path / "server.html"
        result = export(answer["id"], "--server", server.url, "-o", str(out))
        assert result.returncode == 0, result.stderr
        data = json.loads(parts(out.read_text())["data"])
        assert data["timeline"]["messages"][0]["title"] == "From the server"
        assert data["markers"] == [
            {"id": marker["id"], "stream": 0, "event": 2, "label": "a moment", "note": "why"}
        ]
        with urllib.request.urlopen(
            f"{server.url}/api/captures/{answer['id']}/player.html", timeout=30
        ) as response:
            served = json.loads(parts(response.read().decode())["data"])
        assert served == data  # the download button gives the same file's data
        result = export("nope", "--server", server.url, "-o", str(tmp_path / "y.html"))
        assert (
            result.returncode == 2 and "404" in result.stderr and "no such capture" in result.stderr
        )
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ('import x from "./b.js";\n', "only named and namespace imports"),
        ('import "./b.js";\n', "an import this bundler does not read"),
        ("export default 1;\n", "an export this bundler does not read"),
        ("export let n = 1;\n", "an export this bundler does not read"),
        (
            'import { b } from "./b.js";\nexport const a = 1;\n',
            "import cycle: a.js -> b.js -> a.js",
        ),
        ('import { c } from "./c.js";\n', "does not exist"),
    ],
)
def test_the_bundler_refuses_what_it_cannot_read(tmp_path, source, why):
    (tmp_path / "a.js").write_text(source)
    (tmp_path / "b.js").write_text('import { a } from "./a.js";\nexport const b = 2;\n')
    with pytest.raises(BundleError, match=re.escape(why)):
        bundle(tmp_path / "a.js")


def test_the_bundle_runs_modules_in_order_with_their_bindings(tmp_path):
    (tmp_path / "main.js").write_text(
        'import { twice as double } from "./lib.js";\nimport * as lib from "./lib.js";\n'
        "globalThis.out = [double(2), lib.NAME, lib.twice(5)];\n"
    )
    (tmp_path / "lib.js").write_text(
        'import { base } from "./base.js";\nexport { base };\nexport const NAME = "lib";\n'
        "export function twice(n) {\n  return base * n * 2;\n}\n"
    )
    (tmp_path / "base.js").write_text("export const base = 1;\n")
    script = bundle(tmp_path / "main.js") + "console.log(JSON.stringify(globalThis.out));\n"
    result = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [4, "lib", 10]
