"""The request beside the stream in Chromium (docs/timeline.md, "The request"): a HAR entry's
posted body drawn as the panel (method and URL without the key, the parameters, the tools
folded with their schemas, the messages by role with a tool call's arguments and a tool
result's id), all as text; and no panel for a capture that holds no request."""

from __future__ import annotations

import json
import subprocess

import httpx
import pytest

from .. import helpers
from ..proxy_helpers import KEY, proxy_server
from ..test_api import upload
from .test_player import open_demo, play_to_end, wait_until

pytestmark = pytest.mark.browser

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "<b>not markup</b>"}},
    "required": ["city"],
}
BODY = {
    "model": "gpt-4o",
    "stream": True,
    "stream_options": {"include_usage": True},
    "temperature": 0.3,
    "tool_choice": "required",
    "tools": [
        {
            "type": "function",
            "function": {"name": "GetWeatherArgs", "description": "Weather", "parameters": WEATHER},
        }
    ],
    "messages": [
        {"role": "system", "content": "<script>alert(1)</script> Be brief."},
        {"role": "user", "content": "Weather in Edinburgh?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_earlier",
                    "type": "function",
                    "function": {"name": "GetWeatherArgs", "arguments": '{"city":"Leith"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_earlier", "content": "12 C"},
    ],
}


def har_with_request() -> bytes:
    entry = {
        "request": {
            "method": "POST",
            "url": "https://api.example.test/v1/chat/completions?api_key=SECRETKEY123",
            "headers": [],
            "postData": {"mimeType": "application/json", "text": json.dumps(BODY)},
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {
                "mimeType": "text/event-stream",
                "text": helpers.corpus("openai-gpt4o-tool-single.sse").decode(),
            },
        },
    }
    return json.dumps({"log": {"version": "1.2", "entries": [entry]}}).encode()


def test_a_har_entrys_request_is_drawn_beside_its_stream(page, server):
    status, answer = upload(server, har_with_request(), title="DevTools with a request")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    panel = page.get_by_test_id("request")
    assert panel.count() == 1
    assert panel.get_attribute("open") is None  # folded until asked for
    assert panel.get_by_test_id("request-method").text_content() == "POST"
    url = panel.get_by_test_id("request-url").text_content()
    assert url == "https://api.example.test/v1/chat/completions"
    assert "SECRETKEY123" not in page.content()
    panel.locator("summary").first.click()
    rows = panel.locator('[data-testid="request-params"] tr[data-param]')
    params = {
        row.get_attribute("data-param"): row.locator(".param-value").text_content()
        for row in rows.all()
    }
    assert params == {
        "model": "gpt-4o",
        "stream": "true",
        "stream_options": '{"include_usage":true}',
        "temperature": "0.3",
        "tool_choice": "required",
    }
    tool = panel.get_by_test_id("request-tool")
    assert tool.count() == 1 and tool.get_attribute("open") is None  # its schema folded
    schema = tool.get_by_test_id("request-tool-schema")
    assert not schema.is_visible()
    tool.locator("summary").click()
    assert schema.is_visible()
    assert json.loads(schema.text_content()) == WEATHER  # as text: the <b> is not markup
    assert tool.locator("b").count() == 0
    messages = panel.get_by_test_id("request-message")
    assert [m.get_attribute("data-role") for m in messages.all()] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]
    assert "<script>alert(1)</script> Be brief." in messages.nth(0).text_content()
    assert panel.locator("script").count() == 0
    call = panel.get_by_test_id("request-tool-call")
    assert call.locator(".request-call-name").text_content() == "GetWeatherArgs"
    assert call.locator(".request-call-id").text_content() == "call_earlier"
    assert call.locator(".request-arguments").text_content() == '{"city":"Leith"}'
    result = panel.get_by_test_id("request-tool-result")
    assert result.locator(".request-call-id").text_content() == "call_earlier"
    assert result.locator(".request-result").text_content() == "12 C"
    # The stream's own tool call is still drawn as its card, apart from the request's.
    play_to_end(page)
    assert page.get_by_test_id("tool-call").count() == 1
    assert page.get_by_test_id("request-tool-call").count() == 1


def test_a_recorded_request_is_drawn_for_a_demo(page, server):
    open_demo(page, server, "tool-calls-parallel")
    panel = page.get_by_test_id("request")
    assert panel.count() == 1
    assert panel.get_by_test_id("request-url").text_content() == (
        "https://api.openai.com/v1/chat/completions"
    )
    names = panel.locator('[data-testid="request-tool"] .request-tool-name').all_text_contents()
    assert names == ["GetWeatherArgs", "get_stock_price"]


def test_a_capture_without_a_request_shows_no_panel(page, server):
    status, answer = upload(server, helpers.corpus("openai-gpt4o-tool-single.sse"))
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    assert page.get_by_test_id("stream").count() == 1
    assert page.get_by_test_id("request").count() == 0


def test_a_live_runs_request_is_drawn_from_its_first_message_on(page, server, fake):
    page.goto(server.url + "/live")
    page.get_by_test_id("live-base-url").fill(fake.url)
    page.get_by_test_id("live-model").fill("slow:30")
    page.get_by_test_id("live-api-key").fill("sk-browser-canary-0123456789")
    wait_until(
        page, "document.querySelector('[data-testid=live-preview]').dataset.state === 'ready'"
    )
    page.get_by_test_id("live-run").click()
    wait_until(page, "document.querySelector('#player').dataset.state === 'live'")
    wait_until(page, "document.querySelector('[data-testid=request]') !== null")
    panel = page.get_by_test_id("request")
    assert panel.get_by_test_id("request-method").text_content() == "POST"
    assert panel.get_by_test_id("request-url").text_content() == fake.url + "/chat/completions"
    params = panel.locator('[data-testid="request-params"] tr[data-param]')
    by_name = {
        r.get_attribute("data-param"): r.locator(".param-value").text_content()
        for r in params.all()
    }
    roles = [m.get_attribute("data-role") for m in panel.get_by_test_id("request-message").all()]
    assert page.evaluate("document.querySelector('#player').dataset.endReason") in (None, "")
    wait_until(page, "document.querySelector('#player').dataset.endReason === 'done'", timeout=20)
    sent = fake.requests[-1]["body"]  # what the upstream got, once the run is over
    assert by_name["model"] == "slow:30" == sent["model"]
    assert roles == [m["role"] for m in sent["messages"]]
    assert "sk-browser-canary-0123456789" not in page.content()


def test_a_proxied_calls_request_is_drawn_on_its_page(page, tmp_path, fake):
    server = proxy_server(tmp_path, fake).start()
    try:
        with httpx.Client(timeout=60) as client:
            body = {
                "model": "slow:3",
                "stream": True,
                "temperature": 0.5,
                "messages": [{"role": "user", "content": "through the proxy"}],
            }
            answer = client.post(
                f"{server.url}/proxy/local/v1/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {KEY}"},
            )
            assert answer.status_code == 200
        page.goto(server.url + "/proxy")
        link = page.locator('[data-testid="proxy-call-link"]').first
        link.wait_for(timeout=15000)
        page.goto(server.url + link.get_attribute("href"))
        page.wait_for_selector('[data-testid="request"]', state="attached", timeout=15000)
        panel = page.get_by_test_id("request")
        assert panel.get_by_test_id("request-method").text_content() == "POST"
        assert panel.get_by_test_id("request-url").text_content().endswith("/v1/chat/completions")
        assert panel.locator('tr[data-param="temperature"] .param-value').text_content() == "0.5"
        message = panel.get_by_test_id("request-message")
        assert message.get_attribute("data-role") == "user"
        assert "through the proxy" in message.text_content()
        assert KEY not in page.content()
    finally:
        server.stop()


def test_the_compare_page_shows_the_requests_differences(page, server):
    page.goto(server.url + "/compare/demos/tool-calls-parallel/demos/n3-choices")
    page.wait_for_selector('#compare[data-loaded="true"]', state="attached", timeout=20000)
    box = page.get_by_test_id("compare-request")
    assert box.get_attribute("data-same") == "false"
    status = box.evaluate(
        "b => Object.fromEntries([...b.querySelectorAll('[data-testid=compare-request-params] "
        "tr[data-key]')].map(r => [r.dataset.key, r.dataset.status]))"
    )
    assert status["model"] == "same" and status["n"] == "added"
    tools = box.locator('[data-testid="compare-request-tools"] tr[data-key]')
    assert [t.get_attribute("data-status") for t in tools.all()] == ["removed", "removed"]
    assert box.locator('[data-testid="compare-request-messages"] tr[data-key]').count() >= 2
    # Each side's player leaves the request to this table.
    assert not page.locator(
        '[data-testid="compare-side"] [data-testid="request"]'
    ).first.is_visible()


def test_the_compact_embed_leaves_the_request_to_the_full_page(page, server):
    page.goto(server.url + "/embed/demos/tool-calls-parallel")
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    panel = page.get_by_test_id("request")
    assert panel.count() == 1 and not panel.is_visible()


def test_a_curl_traces_request_is_drawn_without_its_key(page, server, fake, tmp_path):
    """Real ``curl --trace-ascii -`` output: the method, the URL and the body sent, drawn;
    the key it sent in Authorization nowhere on the page."""
    (tmp_path / "body.json").write_text(
        json.dumps({**BODY, "model": "replay:openai-gpt4o-tool-single.sse"})
    )
    secret = "sk-proj-" + "Z9y8X7w6V5u4T3s2R1q0" * 3
    args = ["curl", "-sS", "-N", "--trace-ascii", "-", "-d", f"@{tmp_path / 'body.json'}"]
    args += ["-H", "Content-Type: application/json", "-H", f"Authorization: Bearer {secret}"]
    done = subprocess.run(
        [*args, f"{fake.url}/chat/completions"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=60,
    )
    assert done.returncode == 0 and b"=> Send data" in done.stdout, done.stdout
    status, answer = upload(server, done.stdout, title="curl trace")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    panel = page.get_by_test_id("request")
    assert panel.count() == 1
    assert panel.get_by_test_id("request-method").text_content() == "POST"
    assert panel.get_by_test_id("request-url").text_content() == f"{fake.url}/chat/completions"
    panel.locator("summary").first.click()
    rows = panel.locator('[data-testid="request-params"] tr[data-param]')
    values = {
        r.get_attribute("data-param"): r.locator(".param-value").text_content() for r in rows.all()
    }
    assert values["temperature"] == "0.3" and values["tool_choice"] == "required"
    assert panel.locator(".request-source").text_content() == "from the curl output"
    assert len(panel.get_by_test_id("request-message").all()) == 4
    content = page.content()
    assert secret[:24] not in content and secret[-12:] not in content
