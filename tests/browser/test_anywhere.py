"""Issue 14, a player that works anywhere: the static export played from file:// with every
network request blocked, the download button, the compact embed in an 800x420 iframe with a
popover open, presentation zoom and the high-contrast theme."""

from __future__ import annotations

import contextlib
import html as html_text
import http.server
import json
import threading
import urllib.request

import pytest

from app.demos import find
from app.settings import load
from app.standalone.export import export_demo

from ..test_api import upload as api_upload
from .conftest import watch
from .test_player import choice_texts, demo_streams, wait_until
from .test_share import XSS_TOKENS, xss_capture


@pytest.fixture
def offline(browser):
    """A browser context in which every request that is not the file itself is aborted and
    recorded (a network request from the export is a failure)."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    requests: list[str] = []

    def block(route) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()  # the export itself
        else:
            requests.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    page = context.new_page()
    page.on(
        "request",
        lambda req: (
            requests.append(req.url) if not req.url.startswith(("file:", "data:")) else None
        ),
    )
    errors = watch(page)
    page.requests = requests
    yield page
    errors.check()
    context.close()


def open_file(page, path) -> None:
    page.goto(path.as_uri())
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.wait_for_selector('#player[data-markers="ready"]', state="attached", timeout=15000)


def exported(tmp_path, demo: str):
    path = tmp_path / f"{demo}.html"
    path.write_bytes(export_demo(demo, load({})).html)
    return path


def test_the_export_plays_from_file_with_no_network_tool_calls_raw_view_and_help(
    offline, tmp_path, shot
):
    page = offline
    open_file(page, exported(tmp_path, "tool-calls-parallel"))
    page.get_by_test_id("player-speed").select_option("max")
    page.get_by_test_id("player-play").click()
    page.wait_for_selector('#player[data-state="ended"]', state="attached", timeout=15000)
    cards = page.get_by_test_id("tool-call")
    assert cards.count() == 2
    names = [cards.nth(i).get_by_test_id("tool-name").text_content() for i in range(2)]
    assert names == ["get_stock_price", "GetWeatherArgs"] or sorted(names) == [
        "GetWeatherArgs",
        "get_stock_price",
    ]
    for i in range(2):
        assert cards.nth(i).get_by_test_id("tool-state").text_content().strip()
        assert json.loads(cards.nth(i).get_by_test_id("tool-pretty").text_content())
    # The raw view reads its texts from the file.
    wait_until(
        page,
        "document.querySelectorAll('.raw-list li[data-raw]').length > 0 && [...document.querySelectorAll('.raw-list li[data-raw]')].some(li => li.textContent.includes('data: {'))",
    )
    # Panels, chapters, keyboard help, theme switch, text size.
    assert page.get_by_test_id("metrics").count() == 1 and page.get_by_test_id("usage").count() == 1
    assert page.locator('[data-testid="chapter"][data-kind="auto"]').count() >= 4
    page.keyboard.press("Home")
    page.keyboard.press("]")
    assert page.evaluate("window.streamscope.player.time()") > 0
    page.keyboard.press("?")
    assert page.get_by_test_id("help-overlay").is_visible()
    page.keyboard.press("Escape")
    page.get_by_test_id("theme-switch").select_option("contrast")
    assert page.evaluate("document.documentElement.dataset.theme") == "contrast"
    page.get_by_test_id("player-zoom").select_option("1.5")
    assert page.evaluate("document.documentElement.dataset.zoom") == "1.5"
    shot(page, "export-tool-calls")
    assert page.requests == [], f"the export made network requests: {page.requests}"


def test_the_export_popover_shows_alternatives_offline(offline, tmp_path):
    page = offline
    open_file(page, exported(tmp_path, "logprobs-top"))
    page.keyboard.press("End")
    page.wait_for_selector('#player[data-state="ended"]', state="attached")
    token = page.locator('[data-testid="token"].lp').nth(3)
    token.hover()
    popover = page.get_by_test_id("token-popover")
    popover.wait_for(state="visible")
    assert popover.get_by_test_id("alternative").count() == 5
    streams = demo_streams("logprobs-top")
    from app.domain.dialects.chat.assemble import assemble, plain

    assert choice_texts(page) == [
        plain(assemble(streams[0].events))["choices"][0]["message"]["content"]
    ]
    assert page.requests == []


def test_the_export_has_a_strict_csp_and_keeps_capture_text_as_text(offline, server, tmp_path):
    status, answer = api_upload(server, xss_capture())
    assert status == 201
    req = urllib.request.Request(
        f"{server.url}/api/captures/{answer['id']}/markers",
        data=json.dumps({"t": 0.1, "label": "</script><script>window.__xss=7</script>"}).encode(),
        headers={"Content-Type": "application/json", "X-Delete-Token": answer["delete_token"]},
        method="POST",
    )
    urllib.request.urlopen(req, timeout=30).close()
    with urllib.request.urlopen(
        f"{server.url}/api/captures/{answer['id']}/player.html", timeout=30
    ) as response:
        assert response.headers["Content-Disposition"].startswith("attachment;")
        html = response.read()
    text = html.decode()
    csp = html_text.unescape(
        text.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    )
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "script-src 'sha256-" in csp and "default-src 'none'" in csp and "connect-src" not in csp
    assert text.count("<script") == 2  # the data (never executed) and the player
    assert '<script type="application/json" id="streamscope-data">' in text
    for token in XSS_TOKENS:
        assert token not in text
    path = tmp_path / "xss.html"
    path.write_bytes(html)
    page = offline
    open_file(page, path)
    page.keyboard.press("End")
    page.wait_for_selector('#player[data-state="ended"]', state="attached")
    assert page.evaluate("window.__xss") is None
    assert "".join(XSS_TOKENS) in choice_texts(page)[0]
    label = page.locator('[data-testid="chapter"][data-kind="user"] [data-testid="chapter-label"]')
    assert label.text_content() == "</script><script>window.__xss=7</script>"
    assert page.requests == []


def test_the_download_button_gives_the_same_player(page, server, tmp_path, offline):
    page.goto(f"{server.url}/demos/n3-choices")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    with page.expect_download() as info:
        page.get_by_test_id("download-player").click()
    path = tmp_path / "download.html"
    info.value.save_as(path)
    open_file(offline, path)
    offline.keyboard.press("End")
    offline.wait_for_selector('#player[data-state="ended"]', state="attached")
    assert offline.get_by_test_id("choice").count() == 3
    assert offline.requests == []


# ---------------------------------------------------------------------- the compact embed
@contextlib.contextmanager
def host_page(body: str):
    """Another site (its own loopback port) whose page frames the embed."""

    class Host(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = f"<!doctype html><html><body style='margin:0'>{body}</body></html>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Host)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize("which", ["demo", "capture", "zoomed"])
def test_the_embed_fits_800x420_with_the_popover_inside(page, server, which, shot):
    answer = None
    if which == "demo":
        src = f"{server.url}/embed/demos/logprobs-top"
    elif which == "zoomed":  # large type: the popover is taller than the room above or below
        src = f"{server.url}/embed/demos/logprobs-top?zoom=1.5"
    else:
        _, answer = api_upload(server, find("logprobs-top").read_bytes())
        src = f"{server.url}/embed/{answer['id']}"
    page.set_viewport_size({"width": 1000, "height": 700})
    with host_page(
        f'<iframe src="{src}" width="800" height="420" style="border:0"></iframe>'
    ) as url:
        page.goto(url)
        frame = page.wait_for_selector("iframe").content_frame()
        frame.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
        embed_checks(page, frame, which, answer, shot)


def embed_checks(page, frame, which, answer, shot) -> None:
    frame.evaluate("window.streamscope.player.toEnd()")
    # Compact: transport and text; the chart, raw view, panels, title and downloads are not shown.
    assert frame.get_by_test_id("player-play").is_visible()
    assert frame.get_by_test_id("choice-text").first.is_visible()
    for hidden in ("timeline-chart", "raw-view", "metrics", "player-title", "download-player"):
        found = frame.get_by_test_id(hidden)
        assert found.count() == 0 or not found.first.is_visible(), hidden
    link = frame.get_by_test_id("embed-full")
    assert link.is_visible() and link.get_attribute("target") == "_blank"
    assert link.get_attribute("href").endswith(
        f"/c/{answer['id']}" if answer else "/demos/logprobs-top"
    )
    assert frame.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    tokens = frame.locator('[data-testid="token"].lp')
    count = tokens.count()
    assert count > 3
    for index in range(0, count, max(1, count // 8)):
        token = tokens.nth(index)
        # In the middle of the frame: neither above nor below has the popover's height.
        token.evaluate("e => e.scrollIntoView({block: 'center'})")
        token.hover()
        popover = frame.get_by_test_id("token-popover")
        popover.wait_for(state="visible")
        box = frame.evaluate(
            "() => { const r = document.querySelector('[data-testid=token-popover]').getBoundingClientRect();"
            " return {top: r.top, left: r.left, bottom: r.bottom, right: r.right,"
            " width: document.documentElement.clientWidth, height: document.documentElement.clientHeight}; }"
        )
        assert box["width"] <= 800 and box["height"] <= 420
        assert box["top"] >= 0 and box["bottom"] <= box["height"], (index, box)
        assert box["left"] >= 0 and box["right"] <= box["width"], (index, box)
        assert popover.get_by_test_id("alternative").count() >= 1
    shot(page, f"embed-800x420-{which}")


def test_unknown_demo_embed_is_a_404(page, server):
    response = page.goto(f"{server.url}/embed/demos/nope")
    assert response.status == 404
    page.errors.expect("404")


# ---------------------------------------------------------------------- presentation
def test_zoom_from_the_address_and_the_control(page, server, shot):
    page.goto(f"{server.url}/demos/tool-calls-parallel")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    normal = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    title = page.evaluate(
        "document.querySelector('[data-testid=player-title]').getBoundingClientRect().height"
    )
    page.goto(f"{server.url}/demos/tool-calls-parallel?zoom=2")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    assert page.evaluate(
        "parseFloat(getComputedStyle(document.documentElement).fontSize)"
    ) == pytest.approx(2 * normal)
    assert (
        page.evaluate(
            "document.querySelector('[data-testid=player-title]').getBoundingClientRect().height"
        )
        > 1.6 * title
    )
    assert page.get_by_test_id("player-zoom").input_value() == "2"
    shot(page, "zoom-2")
    page.get_by_test_id("player-zoom").select_option("1")
    assert page.evaluate(
        "parseFloat(getComputedStyle(document.documentElement).fontSize)"
    ) == pytest.approx(normal)
    page.goto(f"{server.url}/demos/tool-calls-parallel?zoom=7")  # not a level: normal size
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    assert page.evaluate("document.documentElement.dataset.zoom") is None


def test_high_contrast_theme_from_the_switch_in_links_and_from_the_server(page, server, shot):
    page.goto(f"{server.url}/demos/tool-calls-parallel")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.get_by_test_id("theme-switch").select_option("contrast")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(0, 0, 0)"
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(255, 255, 255)"
    page.get_by_test_id("copy-link").click()
    copied = page.evaluate("document.getElementById('player').dataset.copied")
    assert "theme=contrast" in copied
    other = page.context.new_page()
    other.goto(f"{server.url}/demos/tool-calls-parallel?theme=contrast")
    assert other.evaluate("document.documentElement.dataset.theme") == "contrast"
    assert other.get_by_test_id("theme-switch").input_value() == "contrast"
    other.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    shot(other, "high-contrast")
    other.close()


def test_an_exported_demo_keeps_its_description(offline, tmp_path):
    """Issue 28, item 23: the export of a demo shows the description its page shows."""
    from app.demos import find

    page = offline
    wanted = find("tool-calls-parallel").description
    open_file(page, exported(tmp_path, "tool-calls-parallel"))
    assert page.locator(".player-head .desc").text_content() == wanted
    meta = page.locator('meta[name="description"]').get_attribute("content")
    assert meta == wanted
