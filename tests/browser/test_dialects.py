"""Issue 12: the page shows each dialect with the same lanes and cards. Each dialect's demo is
played to the end and checked against what ``streamscope inspect --json`` says of the same
capture (its ``normalized`` output): the text and reasoning lanes, the tool cards and their
arguments, the results next to their calls, the citations, the usage under the dialect's own
names, and the stop reason as the dialect spells it; then it is sought back to the middle and
the screen checked against the timeline up to that moment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from app.captures import read_capture
from app.demos import catalog, find

from .test_player import open_demo, play_to_end, wait_until

ROOT = Path(__file__).resolve().parents[2]
DIALECT_DEMOS = sorted(d.name for d in catalog().values() if d.dialect != "chat-completions")


def inspect(name: str) -> dict:
    """``streamscope inspect --json`` of a demo, as a user would run it."""
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", "--json", str(find(name).path)],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def events_of(name: str) -> list[dict]:
    [stream] = read_capture(find(name).read_bytes()).streams
    return [orjson.loads(orjson.dumps(e.to_json())) for e in stream.events]


def js_text(value) -> str:
    """A value as the usage panel writes it (String() or JSON.stringify)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def usage_rows(events: list[dict]) -> dict[str, str]:
    """The usage panel's rows by the dialect's own names: each field as last sent (a field left
    out or null keeps its value), an object field one row per member."""
    merged: dict = {}
    for event in events:
        if event["kind"] == "usage":
            merged.update({k: v for k, v in event["usage"].items() if v is not None})
    if "prompt_tokens" in merged or "completion_tokens" in merged:
        rows = {
            k: js_text(merged[k])
            for k in ("prompt_tokens", "completion_tokens", "total_tokens")
            if k in merged
        }
        rest = {
            k: v
            for k, v in merged.items()
            if not k.startswith(("prompt_tokens", "completion_tokens", "total_tokens"))
        }
        return rows | {k: js_text(v) for k, v in rest.items()}
    rows = {}
    for key, value in merged.items():
        if isinstance(value, dict) and value:
            rows.update({f"{key}.{m}": js_text(v) for m, v in value.items() if v is not None})
        else:
            rows[key] = js_text(value)
    return rows


def screen(page) -> dict:
    return page.evaluate(
        """() => {
        const q = (root, id) => [...root.querySelectorAll(`[data-testid="${id}"]`)];
        const text = (root, id) => q(root, id).map((e) => e.textContent);
        return {
          choices: q(document, "choice").map((c) => ({
            text: text(c, "choice-text").join(""),
            reasoning: text(c, "reasoning-text").join(""),
            finish: text(c, "finish-reason")[0],
            calls: q(c, "tool-call").filter((t) => t.dataset.origin !== "item").map((t) => ({
              name: text(t, "tool-name")[0], id: text(t, "tool-id")[0], args: text(t, "tool-args")[0],
              type: text(t, "tool-type")[0], results: text(t, "tool-result-line"),
            })),
            items: q(c, "tool-call").filter((t) => t.dataset.origin === "item").map((t) => ({
              block: Number(t.dataset.block), name: text(t, "tool-name")[0], args: text(t, "tool-args")[0],
              results: text(t, "tool-result-line"),
            })),
            citations: q(c, "citation").map((e) => ({ block: e.dataset.block, urls: q(e, "citation-url").map((u) => [u.tagName, u.getAttribute("href"), u.textContent]) })),
            notes: q(c, "block-note").map((n) => [n.dataset.block, n.dataset.note, n.textContent]),
            compactions: text(c, "compaction-text"),
          })),
          usage: Object.fromEntries(q(document, "usage").flatMap((u) => [...u.querySelectorAll("[data-usage]")].map((d) => [d.dataset.usage, d.textContent]))),
        };
    }"""
    )


def expected_at(events: list[dict]) -> dict[int, dict]:
    """What the choices show after these events: text, reasoning, calls and their arguments,
    the last stop reason, the citations."""
    out: dict[int, dict] = {}

    def at(choice):
        return out.setdefault(
            choice, {"text": "", "reasoning": "", "calls": {}, "finish": None, "citations": []}
        )

    for e in events:
        kind = e["kind"]
        if kind == "text":
            at(e["choice"])["text"] += e["text"]
        elif kind == "reasoning":
            at(e["choice"])["reasoning"] += e["text"]
        elif kind == "tool_start":
            call = at(e["choice"])["calls"].setdefault(e["call"], {"args": ""})
            call.update(name=e["name"], id=e["id"], type=e["type"])
        elif kind == "tool_args":
            at(e["choice"])["calls"][e["call"]]["args"] += e["text"]
        elif kind == "finish":
            at(e["choice"])["finish"] = e["reason"]
        elif kind == "citation":
            at(e["choice"])["citations"].append(e)
    return out


def check_choices(shown: dict, want: dict[int, dict]) -> None:
    assert len(shown["choices"]) == len(want)
    for choice, (index, w) in zip(shown["choices"], sorted(want.items()), strict=True):
        assert choice["text"] == w["text"], index
        assert choice["reasoning"] == w["reasoning"], index
        assert choice["finish"] == (
            f"finish: {w['finish']}" if w["finish"] is not None else "streaming"
        )
        calls = [w["calls"][c] for c in sorted(w["calls"])]
        assert [(c["name"], c["id"], c["args"], c["type"]) for c in choice["calls"]] == [
            (c["name"] or "(no name yet)", c["id"] or "(no id)", c["args"], c["type"] or "")
            for c in calls
        ]
        assert [c["block"] for c in choice["citations"]] == [
            str(c["block"]) for c in w["citations"]
        ]


@pytest.mark.parametrize("name", DIALECT_DEMOS)
def test_each_dialect_demo_shows_lanes_cards_usage_and_stop_reason_as_inspect_says(
    page, server, name
):
    report = inspect(name)
    [stream] = report["streams"]
    normalized = stream["normalized"]
    events = events_of(name)
    assert stream["dialect"] == find(name).dialect
    open_demo(page, server, name)
    play_to_end(page)
    shown = screen(page)
    # Lanes, tool calls and stop reasons: exactly inspect's normalized outputs.
    assert len(shown["choices"]) == len(normalized["outputs"])
    for choice, output in zip(shown["choices"], normalized["outputs"], strict=True):
        assert choice["text"] == output["text"]
        assert choice["reasoning"] == output["reasoning"]
        assert [(c["name"], c["id"], c["args"]) for c in choice["calls"]] == [
            (t["name"], t["id"] or "(no id)", t["arguments"]) for t in output["tool_calls"]
        ]
        assert choice["finish"] == f"finish: {output['stop_reason']}"
    check_choices(shown, expected_at(events))
    # Usage: the dialect's own names, and inspect's shared counters once the end is played.
    rows = {k: v for k, v in shown["usage"].items() if not k.startswith("normalized.")}
    assert rows == usage_rows(events)
    for key, value in normalized["usage"].items():
        assert shown["usage"][f"normalized.{key}"] == ("unknown" if value is None else str(value))
    help_shown = page.locator('[data-testid="usage-help"] dt').all_text_contents()
    assert help_shown == list(
        json.loads(
            page.evaluate(
                "JSON.stringify(window.streamscope.timeline.capture.streams[0].usage_help)"
            )
        )
    )
    # Citations: one per citation event; a URL is a link only when it is http(s).
    for choice in shown["choices"]:
        for citation in choice["citations"]:
            for tag, href, text in citation["urls"]:
                assert (tag == "A") == text.startswith(("http://", "https://")), text
                assert tag == "SPAN" or href.startswith(("http://", "https://"))
    # Seek back to the middle: the screen is the timeline up to the cursor.
    duration = page.evaluate("window.streamscope.timeline.duration")
    page.get_by_test_id("player-seek").fill(str(round(duration / 2)))
    wait_until(page, "window.streamscope.renderer.busy === false")
    cursor = page.evaluate("window.streamscope.player.cursor")
    assert 0 < cursor < len(events)
    middle = screen(page)
    check_choices(middle, expected_at(events[:cursor]))
    assert middle["usage"].get("normalized.output_tokens") is None, (
        "shared counters only at the end"
    )
    if any(e["kind"] == "usage" for e in events[:cursor]):
        assert {k: v for k, v in middle["usage"].items()} == usage_rows(events[:cursor])


def result_lines(page, tool_id: str) -> list[str]:
    card = page.locator(
        '[data-testid="tool-call"]',
        has=page.locator(f'[data-testid="tool-id"]:text-is("{tool_id}")'),
    )
    return card.locator('[data-testid="tool-result-line"]').all_text_contents()


def test_anthropic_server_tool_results_sit_in_the_card_of_the_call_they_name(page, server, shot):
    events = events_of("anthropic-web-search")
    [result] = [
        e for e in events if e["kind"] == "block_start" and e["type"].endswith("_tool_result")
    ]
    call_id = result["value"]["tool_use_id"]
    urls = [r["url"] for r in result["value"]["content"]]
    open_demo(page, server, "anthropic-web-search")
    page.keyboard.press("End")
    lines = result_lines(page, call_id)
    assert len(lines) == len(urls) and all(
        url in line for url, line in zip(urls, lines, strict=True)
    )
    card = page.locator('[data-testid="tool-call"][data-server="true"]')
    assert card.locator('[data-testid="tool-type"]').text_content() == "server_tool_use"
    links = card.locator('[data-testid="tool-result"] a')
    assert links.first.get_attribute("rel") == "noopener noreferrer nofollow"
    # The citations' numbers mark the end of the text they cite, outside the lane's text.
    marked = page.locator('[data-testid="choice-text"] .tok.cited')
    cited_blocks = sorted({e["block"] for e in events if e["kind"] == "citation"})
    assert marked.count() == len(cited_blocks)
    assert "[1]" not in page.get_by_test_id("choice-text").text_content()
    shot(page, "dialect-anthropic-web-search")
    # Before the result block, the card has no result.
    page.get_by_test_id("player-start").click()
    for _ in range(result["raw"]):
        page.keyboard.press("ArrowRight")
    assert result_lines(page, call_id) == []
    page.keyboard.press("ArrowRight")
    assert len(result_lines(page, call_id)) == len(urls)


def test_signed_thinking_and_code_execution(page, server, shot):
    events = events_of("anthropic-thinking")
    [signature] = [e["signature"] for e in events if e["kind"] == "signature"]
    open_demo(page, server, "anthropic-thinking")
    play_to_end(page)
    note = page.locator('[data-testid="reasoning-lane"] [data-testid="block-note"]')
    assert note.get_attribute("data-note") == "signed"
    assert signature[:8] in note.text_content() and signature[:9] not in note.text_content()
    assert (
        page.get_by_test_id("reasoning-lane").locator("summary").text_content()
        == "Reasoning · thinking"
    )
    [result] = [
        e for e in events if e["kind"] == "block_start" and e["type"].endswith("_tool_result")
    ]
    lines = result_lines(page, result["value"]["tool_use_id"])
    assert lines[0] == "stdout" + result["value"]["content"]["stdout"]
    shot(page, "dialect-anthropic-thinking")


def test_responses_web_search_item_and_encrypted_reasoning(page, server, shot):
    events = events_of("responses-web-search")
    done = next(
        e for e in events if e["kind"] == "block_stop" and e["value"]["type"] == "web_search_call"
    )
    open_demo(page, server, "responses-web-search")
    play_to_end(page)
    item = page.locator('[data-testid="tool-call"][data-origin="item"]')
    assert item.get_attribute("data-server") == "true"
    assert item.locator('[data-testid="tool-state"]').text_content() == "completed"
    assert (
        item.locator('[data-testid="tool-result-line"]').first.text_content()
        == "query" + done["value"]["action"]["query"]
    )
    notes = page.locator('[data-testid="reasoning-lane"] [data-testid="block-note"]')
    assert notes.count() == 2 and all(
        n.startswith("encrypted reasoning (") for n in notes.all_text_contents()
    )
    assert page.get_by_test_id("reasoning-lane").is_visible()
    # The server's snapshots of the whole response, with their status, in the event log.
    statuses = page.locator('[data-testid="diagnostics"] [data-kind="snapshot"]')
    assert [s.get_attribute("data-status") for s in statuses.all()] == [
        e["status"] for e in events if e["kind"] == "snapshot"
    ]
    shot(page, "dialect-responses-web-search")


def test_gemini_code_result_and_grounding_sources(page, server):
    events = events_of("gemini-code-execution")
    result = next(
        e for e in events if e["kind"] == "block_start" and e["type"] == "codeExecutionResult"
    )
    open_demo(page, server, "gemini-code-execution")
    play_to_end(page)
    item = page.locator('[data-testid="tool-call"][data-origin="item"]')
    assert item.locator('[data-testid="tool-name"]').text_content() == "executableCode (PYTHON)"
    assert (
        item.locator('[data-testid="tool-result-line"]').nth(1).text_content()
        == "output" + result["value"]["codeExecutionResult"]["output"]
    )
    assert page.get_by_test_id("stream-model").text_content() == "gemini-2.5-flash"
    open_demo(page, server, "gemini-grounding")
    play_to_end(page)
    grounding = next(
        e
        for e in reversed(events_of("gemini-grounding"))
        if e["kind"] == "extra" and e["fields"].get("groundingMetadata")
    )
    chunks = grounding["fields"]["groundingMetadata"]["groundingChunks"]
    first = next(e for e in events_of("gemini-grounding") if e["kind"] == "citation")["value"]
    citation = page.get_by_test_id("citation").first
    assert (
        citation.get_by_test_id("citation-title").first.text_content()
        == chunks[first["groundingChunkIndices"][0]]["web"]["title"]
    )
    assert (
        citation.get_by_test_id("citation-span").text_content()
        == f"on “{first['segment']['text']}”"
    )


def test_ollama_server_durations_sit_next_to_the_wire_metrics(page, server):
    report = inspect("ollama-chat")
    server_metrics = report["streams"][0]["metrics"]["server"]
    open_demo(page, server, "ollama-chat")
    pending = page.locator('[data-metric="server.eval_duration_ms"]')
    assert pending.get_attribute("data-state") == "pending"
    play_to_end(page)
    for key, value in server_metrics.items():
        shown = page.locator(f'[data-metric="server.{key}"]')
        assert float(shown.get_attribute("data-value")) == pytest.approx(value), key
    ttft = page.locator('[data-testid="metrics"] dt[title^="Time to first token"]').get_attribute(
        "title"
    )
    assert "event with output" in ttft and "choices" not in ttft


def test_binary_frames_show_their_event_names_and_readable_text(page, server):
    open_demo(page, server, "bedrock-tool-use")
    play_to_end(page)
    [stream] = read_capture(find("bedrock-tool-use").read_bytes()).streams
    names = [r.event for r in stream.raw]
    wait_until(page, "document.querySelectorAll('.raw-item .raw-text').length > 0")
    kinds = page.locator(".raw-item .raw-kind").all_text_contents()
    assert kinds and set(kinds) <= set(names)
    texts = page.locator(".raw-item .raw-text").all_text_contents()
    assert all("\\x00" in t and not any(ord(c) < 0x20 for c in t) for t in texts)
    page.get_by_test_id("raw-filter").fill("messageStop")
    wanted = sum(
        1
        for i, name in enumerate(names)
        if name == "messageStop" or "messageStop" in stream.raw_text(i)
    )
    wait_until(
        page,
        f"/^stream 1: {wanted} of {len(names)} events match/.test(document.querySelector('.raw-range').textContent)",
    )
    assert page.locator(".raw-item .raw-kind").all_text_contents() == ["messageStop"] * wanted


def test_the_home_page_lists_a_demo_per_dialect(page, server):
    from app.domain.dialects import DIALECTS

    page.goto(server.url + "/")
    shown = {d.get_attribute("data-dialect") for d in page.get_by_test_id("demo-dialect").all()}
    assert shown == {d.name for d in DIALECTS}


# ------------------------------------------------------------------ hostile captures
IMG = "<img src=x onerror=alert(1)>"


def sse(events: list[tuple[str | None, dict]], end: str = "\n\n") -> bytes:
    return "".join(
        (f"event: {name}\n" if name else "") + "data: " + json.dumps(data) + end
        for name, data in events
    ).encode()


def block(kind: str, index: int, **fields) -> tuple[str, dict]:
    return (f"content_block_{kind}", {"type": f"content_block_{kind}", "index": index, **fields})


def delta(index: int, **fields) -> tuple[str, dict]:
    return block("delta", index, delta=fields)


HOSTILE_ANTHROPIC = sse(
    [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_h",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-x",
                    "content": [],
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
        ),
        block(
            "start",
            0,
            content_block={"type": "redacted_thinking", "data": "<script>alert(1)</script>"},
        ),
        block("stop", 0),
        block("start", 1, content_block={"type": "thinking", "thinking": "", "signature": ""}),
        delta(1, type="thinking_delta", thinking="<b>think</b>"),
        delta(1, type="signature_delta", signature=IMG),
        block("stop", 1),
        block("start", 2, content_block={"type": "compaction", "content": None}),
        delta(2, type="compaction_delta", content="<script>alert(2)</script>"),
        block("stop", 2),
        block(
            "start",
            3,
            content_block={"type": "server_tool_use", "id": "srvtoolu_h", "name": IMG, "input": {}},
        ),
        delta(3, type="input_json_delta", partial_json='{"query": "<script>alert(3)</script>"}'),
        block("stop", 3),
        block(
            "start",
            4,
            content_block={
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_h",
                "content": [
                    {
                        "type": "web_search_result",
                        "title": "<img src=x onerror=alert(4)>",
                        "url": "javascript:alert(4)",
                    }
                ],
            },
        ),
        block("stop", 4),
        block("start", 5, content_block={"type": "text", "text": "", "citations": []}),
        delta(
            5,
            type="citations_delta",
            citation={
                "type": "web_search_result_location",
                "url": "javascript:alert(1)",
                "title": "<img src=x onerror=alert(5)>",
                "cited_text": "<script>alert(5)</script>",
            },
        ),
        delta(5, type="text_delta", text="<i>cited</i>"),
        block("stop", 5),
        block("start", 6, content_block={"type": "<b>odd block</b>", "data": "x"}),
        delta(6, type="signature_delta", signature="<b>sig</b>"),
        block("stop", 6),
        block(
            "start",
            7,
            content_block={
                "type": "<b>evil</b>_tool_result",
                "tool_use_id": "<img src=x onerror=alert(8)>",
                "content": [{"type": "text", "text": "<script>alert(8)</script>"}],
            },
        ),
        block("stop", 7),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "<img src=x onerror=alert(6)>"},
                "usage": {"output_tokens": 9, "<img src=x onerror=alert(7)>": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
)


def item(kind: str, n: int, index: int, item: dict) -> tuple[str, dict]:
    name = f"response.output_item.{kind}"
    return (name, {"type": name, "sequence_number": n, "output_index": index, "item": item})


HOSTILE_RESPONSES = sse(
    [
        (
            "response.created",
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {
                    "id": "resp_h",
                    "object": "response",
                    "status": IMG,
                    "model": "gpt-x",
                    "output": [],
                },
            },
        ),
        item("added", 1, 0, {"id": "ws_h", "type": "web_search_call", "status": "in_progress"}),
        (
            "response.web_search_call.searching",
            {
                "type": "response.web_search_call.searching",
                "sequence_number": 2,
                "output_index": 0,
                "item_id": "ws_h",
            },
        ),
        item(
            "done",
            3,
            0,
            {
                "id": "ws_h",
                "type": "web_search_call",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "<script>alert(9)</script>",
                    "sources": [{"type": "url", "url": "javascript:alert(9)"}],
                },
            },
        ),
        item(
            "added",
            4,
            1,
            {"id": "ci_h", "type": "code_interpreter_call", "status": "in_progress", "code": ""},
        ),
        (
            "response.code_interpreter_call_code.delta",
            {
                "type": "response.code_interpreter_call_code.delta",
                "sequence_number": 5,
                "output_index": 1,
                "item_id": "ci_h",
                "delta": "<img src=x onerror=alert(10)>",
            },
        ),
        item(
            "done",
            6,
            1,
            {
                "id": "ci_h",
                "type": "code_interpreter_call",
                "status": "completed",
                "code": "<img src=x onerror=alert(10)>",
                "outputs": [
                    {"type": "logs", "logs": "<script>alert(11)</script>"},
                    {"type": "image", "url": "data:text/html,<script>alert(12)</script>"},
                ],
            },
        ),
        item(
            "added",
            7,
            2,
            {
                "id": "msg_h",
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            },
        ),
        (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "sequence_number": 8,
                "output_index": 2,
                "item_id": "msg_h",
                "content_index": 0,
                "delta": "Hello <u>world</u>",
            },
        ),
        (
            "response.output_text.annotation.added",
            {
                "type": "response.output_text.annotation.added",
                "sequence_number": 9,
                "output_index": 2,
                "item_id": "msg_h",
                "content_index": 0,
                "annotation_index": 0,
                "annotation": {
                    "type": "url_citation",
                    "url": "data:text/html,<script>alert(13)</script>",
                    "title": "<img src=x onerror=alert(13)>",
                    "start_index": 6,
                    "end_index": 18,
                },
            },
        ),
        item(
            "done",
            10,
            2,
            {
                "id": "msg_h",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "Hello <u>world</u>", "annotations": []}
                ],
            },
        ),
        (
            "response.completed",
            {
                "type": "response.completed",
                "sequence_number": 11,
                "response": {
                    "id": "resp_h",
                    "object": "response",
                    "status": "completed",
                    "model": "gpt-x",
                    "output": [],
                    "usage": {
                        "input_tokens": 3,
                        "output_tokens": 4,
                        "<script>x</script>": {"<img src=x onerror=alert(14)>": 1},
                    },
                },
            },
        ),
    ]
)


def part(value: dict, **candidate) -> tuple[None, dict]:
    return (
        None,
        {"candidates": [{"content": {"parts": [value], "role": "model"}, "index": 0, **candidate}]},
    )


HOSTILE_GEMINI = sse(
    [
        part({"text": "Sunny <img src=x onerror=alert(15)>"}),
        part({"executableCode": {"language": "<b>PY</b>", "code": "<script>alert(16)</script>"}}),
        part(
            {
                "codeExecutionResult": {
                    "outcome": "OUTCOME_OK",
                    "output": "<img src=x onerror=alert(17)>",
                }
            }
        ),
        part(
            {"text": " today."},
            finishReason=1,  # Gemini's integer enum, kept as sent
            groundingMetadata={
                "groundingChunks": [
                    {
                        "web": {
                            "uri": "javascript:alert(18)",
                            "title": "<img src=x onerror=alert(18)>",
                        }
                    }
                ],
                "groundingSupports": [
                    {
                        "segment": {
                            "startIndex": 0,
                            "endIndex": 5,
                            "text": "<script>alert(19)</script>",
                        },
                        "groundingChunkIndices": [0],
                    }
                ],
            },
        ),
    ],
    end="\r\n\r\n",
)


def open_hostile(page, server, data: bytes) -> list:
    from ..test_api import upload

    dialogs: list = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    status, answer = upload(server, data, title="hostile")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    play_to_end(page)
    return dialogs


def no_markup(page, dialogs: list, literals: list[str]) -> None:
    """Nothing from the capture became markup, a link or a script; all of it is text."""
    found = page.evaluate(
        """() => {
        const root = document.querySelector('[data-testid="streams"]');
        return {
          elements: root.querySelectorAll("img, script, b, i, u, iframe, object").length,
          links: [...root.querySelectorAll("[href], [src]")].map((e) => e.getAttribute("href") ?? e.getAttribute("src")),
          text: root.textContent,
        };
    }"""
    )
    assert dialogs == []
    assert found["elements"] == 0
    assert all(link.startswith(("http://", "https://")) for link in found["links"]), found["links"]
    for literal in literals:
        assert literal in found["text"], literal


def test_hostile_anthropic_blocks_results_citations_and_usage_stay_text(page, server):
    dialogs = open_hostile(page, server, HOSTILE_ANTHROPIC)
    no_markup(
        page,
        dialogs,
        [
            "<script>alert(2)</script>",  # the compaction summary
            "<img src=x onerror=alert(4)>",  # a result's title
            "javascript:alert(4)",  # its URL, as text
            "<img src=x onerror=alert(5)>",  # a citation's title
            "javascript:alert(1)",  # its URL, as text
            "<script>alert(5)</script>",  # its quote
            "<b>odd block</b> (block 6): signed (<b>sig</…, 10 characters)",  # a block's type, in its note
            "<b>evil</b>_tool_result (block 7): no call for <img src=x onerror=alert(8)>",
            "<script>alert(8)</script>",
            "finish: <img src=x onerror=alert(6)>",
        ],
    )
    notes = page.get_by_test_id("block-note").all_text_contents()
    assert "redacted thinking (25 bytes)" in notes
    assert not any("alert(1)</script>" in n or "onerror" in n for n in notes), notes
    assert page.locator('[data-testid="citation-url"]').evaluate(
        "e => [e.tagName, e.className]"
    ) == ["SPAN", "cite-url unlinked"]
    assert page.locator('[data-usage="<img src=x onerror=alert(7)>"]').text_content() == "1"


def test_hostile_responses_items_annotations_and_snapshots_stay_text(page, server):
    dialogs = open_hostile(page, server, HOSTILE_RESPONSES)
    no_markup(
        page,
        dialogs,
        [
            f"response {IMG} (snapshot in response.created)",
            "<script>alert(9)</script>",
            "javascript:alert(9)",
            "<img src=x onerror=alert(10)>",
            "<script>alert(11)</script>",
            "data:text/html,<script>alert(12)</script>",
            "<img src=x onerror=alert(13)>",
            "data:text/html,<script>alert(13)</script>",
            "on “<u>world</u>”",
        ],
    )
    assert page.get_by_test_id("choice-text").text_content() == "Hello <u>world</u>"
    assert (
        page.locator(
            '[data-usage="<script>x</script>.<img src=x onerror=alert(14)>"]'
        ).text_content()
        == "1"
    )


def test_hostile_gemini_code_and_grounding_stay_text(page, server):
    dialogs = open_hostile(page, server, HOSTILE_GEMINI)
    no_markup(
        page,
        dialogs,
        [
            "Sunny <img src=x onerror=alert(15)>",
            "executableCode (<b>PY</b>)",
            "<script>alert(16)</script>",
            "<img src=x onerror=alert(17)>",
            "<img src=x onerror=alert(18)>",
            "javascript:alert(18)",
            "<script>alert(19)</script>",
            "finish: 1",
        ],
    )


def test_an_error_inside_a_dialect_stream_is_shown_at_its_moment(page, server):
    """An Anthropic overloaded_error mid-stream: the text before it stays, the error shows when
    it is played, and without message_delta the stop reason reads "none"."""
    from ..test_api import upload

    data = sse(
        [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_e",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-x",
                        "content": [],
                        "usage": {"input_tokens": 5, "output_tokens": 1},
                    },
                },
            ),
            block("start", 0, content_block={"type": "text", "text": ""}),
            delta(0, type="text_delta", text="Hello"),
            (
                "error",
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ),
        ]
    )
    status, answer = upload(server, data, title="overloaded")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.get_by_test_id("choice-text").text_content() == "Hello"
    assert page.get_by_test_id("stream-errors").text_content() == ""
    page.keyboard.press("End")
    assert (
        page.get_by_test_id("stream-errors").text_content()
        == "Stream error: Overloaded (code overloaded_error)"
    )
    assert page.get_by_test_id("finish-reason").text_content() == "finish: none"


def test_an_anthropic_refusal_shows_its_reason_in_the_answers_place(page, server):
    """Issue 28, item 17: a refusal's reason comes in message_delta's stop_details, with no
    text: the page shows it in the refusal box, where the answer would be."""
    from ..test_api import upload

    details = {"type": "refusal", "category": "cyber", "explanation": "This could enable harm."}
    data = sse(
        [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_r",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-x",
                        "content": [],
                        "usage": {"input_tokens": 5, "output_tokens": 1},
                    },
                },
            ),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "refusal", "stop_details": details},
                    "usage": {"output_tokens": 0},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )
    status, answer = upload(server, data, title="refusal")
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    page.keyboard.press("End")
    refusal = page.get_by_test_id("choice-refusal")
    wait_until(page, "!document.querySelector('.refusal-box').hidden")
    assert refusal.is_visible()
    assert refusal.text_content() == "This could enable harm. (category: cyber)"
    assert page.get_by_test_id("choice-text").text_content() == ""
    assert page.get_by_test_id("finish-reason").text_content() == "finish: refusal"
