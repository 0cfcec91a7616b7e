"""Issue 27, section 3: the page draws a choice's blocks in the order they began, interleaved.
An Anthropic answer that goes text, tool_use, text is drawn as the text, then the tool card,
then the rest of the text (before, the whole text was drawn above every card). And the browser
knows roles, not dialects: a dialect added in Python alone plays with its blocks shown."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from ..live_server import LiveServer
from ..test_api import upload
from .test_dialects import block, delta, sse
from .test_player import play_to_end

TEXT_TOOL_TEXT = sse(
    [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_i",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-x",
                    "content": [],
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
        ),
        block("start", 0, content_block={"type": "text", "text": ""}),
        delta(0, type="text_delta", text="Let me "),
        delta(0, type="text_delta", text="look that up."),
        block("stop", 0),
        block(
            "start",
            1,
            content_block={"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        ),
        delta(1, type="input_json_delta", partial_json='{"city": "Paris"}'),
        block("stop", 1),
        block("start", 2, content_block={"type": "text", "text": ""}),
        delta(2, type="text_delta", text="It is sunny in Paris."),
        block("stop", 2),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 20},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
)

# Top to bottom on the screen: each token or card's vertical middle, in the page's order.
DRAWN = """() => {
  const middle = (e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
  const tokens = [...document.querySelectorAll('[data-testid="choice-text"] [data-testid="token"]')];
  const cards = [...document.querySelectorAll('[data-testid="tool-call"]')];
  const drawn = [
    ...tokens.map((t) => [middle(t), t.textContent]),
    ...cards.map((c) => [middle(c), `card:${c.querySelector('[data-testid="tool-name"]').textContent}`]),
  ];
  return drawn.sort((a, b) => a[0] - b[0]).map(([, what]) => what);
}"""


def open_capture(page, server, data: bytes, title: str) -> None:
    status, answer = upload(server, data, title=title)
    assert status == 201, answer
    page.goto(answer["url"])
    page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)


def test_text_tool_text_is_drawn_in_that_order(page, server):
    open_capture(page, server, TEXT_TOOL_TEXT, "text, tool, text")
    play_to_end(page)
    assert page.evaluate(DRAWN) == [
        "Let me ",
        "look that up.",
        "card:get_weather",
        "It is sunny in Paris.",
    ]
    # One block of tokens per stretch of text, each stretch's tokens on the same lines.
    assert page.locator('[data-testid="choice-text"] > .block').count() == 2
    # The lane's text is still the whole answer, exactly (share links and search read it).
    assert (
        page.get_by_test_id("choice-text").text_content()
        == "Let me look that up.It is sunny in Paris."
    )
    # Sought back before the second text: the card is last.
    page.get_by_test_id("player-start").click()
    for _ in range(9):
        page.keyboard.press("ArrowRight")
    assert page.evaluate(DRAWN) == ["Let me ", "look that up.", "card:get_weather"]


# A dialect made up for this test, registered in the server's process before anything reads
# the registry (a sitecustomize on its PYTHONPATH): one package with its Dialect record, its
# labels and its view, as docs/dialects.md, "Adding a dialect", says. No JS knows it.
TOY_PACKAGE = textwrap.dedent(
    '''
    """Toyblocks: each payload is one toy step: words, a lookup the server runs, its answer."""

    from typing import Any

    from app.domain.dialects.base import NAMED, Dialect, UsageFields
    from app.domain.dialects.labels import Labels, UsageRow
    from app.domain.dialects.viewparts import line
    from app.domain.events import BlockStart, BlockStop, Event, RawEvent, TextDelta, Usage
    from app.domain.interpret import PayloadInterpreter


    class ToyInterpreter(PayloadInterpreter):
        dialect = "toyblocks"

        def value(self, raw: RawEvent, value: Any) -> None:
            step = value.get("toy_step") if isinstance(value, dict) else None
            if step == "words":
                raw.choices = raw.output = True
                self.add(BlockStart(choice=0, block=value["n"], type="toy_words"), raw)
                self.add(TextDelta(choice=0, text=value["words"], block=value["n"]), raw)
                self.add(BlockStop(choice=0, block=value["n"]), raw)
            elif step in ("lookup", "answer"):
                self.add(BlockStart(choice=0, block=value["n"], type=f"toy_{step}", value=value), raw)
                self.add(BlockStop(choice=0, block=value["n"]), raw)
            elif step == "tally":
                self.add(Usage(usage=value["tally"], source="usage"), raw)
            else:
                self.other(raw, value)


    def sniff(event: str | None, value: dict[str, Any]):
        return (NAMED, "a toy_step field") if "toy_step" in value else None


    def assemble(events: list[Event]) -> dict[str, Any]:
        return {"toy": "".join(e.text for e in events if isinstance(e, TextDelta))}


    def view(event: Event):
        if not isinstance(event, BlockStart):
            return None
        if event.type == "toy_words":
            return {"role": "text"}
        if event.type == "toy_lookup":
            return {"role": "server_call", "item": True, "name": "toy_lookup", "id": "toy_1",
                    "code": event.value["what"], "status": "completed"}
        if event.type == "toy_answer":
            lines = [line("found", event.value["found"])]
            return {"role": "tool_result", "result": {"for": "previous", "lines": lines}}
        return None


    TOYBLOCKS = Dialect(
        name="toyblocks",
        title="Toyblocks",
        interpreter=ToyInterpreter,
        sniff=sniff,
        assemble=assemble,
        usage=UsageFields("tally", "heard", "said"),
        usage_help={"said": "words the toy said"},
        labels=Labels(output="Toy reply", usage_rows=(UsageRow("said", "spoken", "said", "said"),),
                      usage_when=("said",)),
        view=view,
    )
    '''
)
SITECUSTOMIZE = textwrap.dedent(
    """
    from app.domain import dialects as registry
    from toyblocks import TOYBLOCKS

    # The one line a new dialect adds to the registry: here, at its end.
    registry.DIALECTS = (*registry.DIALECTS, TOYBLOCKS)
    registry.NAMES = (*registry.NAMES, TOYBLOCKS.name)
    registry._BY_NAME = {**registry._BY_NAME, TOYBLOCKS.name: TOYBLOCKS}
    """
)
TOY_CAPTURE = sse(
    [
        (None, {"toy_step": "words", "n": 0, "words": "Let me look."}),
        (None, {"toy_step": "lookup", "n": 1, "what": "the answer"}),
        (None, {"toy_step": "answer", "n": 2, "found": "42"}),
        (None, {"toy_step": "words", "n": 3, "words": "It is 42."}),
        (None, {"toy_step": "tally", "tally": {"heard": 3, "said": 6}}),
    ]
)


@pytest.fixture(scope="module")
def toy_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("toyblocks")
    (root / "toyblocks").mkdir()
    (root / "toyblocks" / "__init__.py").write_text(TOY_PACKAGE)
    (root / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    live = LiveServer(root / "data", env={"PYTHONPATH": path}).start()
    yield live
    live.stop()


def test_a_new_dialect_plays_in_the_browser_with_no_js_change(page, toy_server):
    """The toy dialect's blocks are drawn by the roles its view gives them, under its labels:
    its words, its lookup's card with what the lookup found, its words again, and its usage
    under its own short name."""
    open_capture(page, toy_server, TOY_CAPTURE, "toy blocks")
    play_to_end(page)
    assert page.locator(".choice-head h3").text_content() == "Toy reply"
    assert page.evaluate(DRAWN) == ["Let me look.", "card:toy_lookup", "It is 42."]
    card = page.get_by_test_id("tool-call")
    assert card.get_attribute("data-server") == "true"
    assert card.get_by_test_id("tool-id").text_content() == "toy_1"
    assert card.get_by_test_id("tool-args").text_content() == "the answer"
    assert card.get_by_test_id("tool-state").text_content() == "completed"
    assert card.get_by_test_id("tool-result-line").all_text_contents() == ["found42"]
    assert page.locator('[data-usage="said"]').text_content() == "6"
    assert page.locator('dt[title="words the toy said"]').text_content() == "spoken"
    assert page.locator('[data-usage="heard"]').text_content() == "3"


REAL = Path(__file__).resolve().parent.parent / "captures" / "dialects"


@pytest.mark.parametrize(
    ("name", "first", "card", "last"),
    [
        # thinking, text, a server tool (code execution) and its result, text (issue 28, item 15)
        ("anthropic-claude-sonnet-4-6-code-execution.sse", 1, 2, 4),
    ],
)
def test_a_real_text_tool_text_answer_is_drawn_in_order_with_its_blocks_apart(
    page, server, name, first, card, last
):
    """On a real capture: the text before the tool, the tool's card, the text after it, each
    text block its own stretch (block boundaries visible: nothing glued across them)."""
    from app.captures import read_capture

    stream = read_capture((REAL / name).read_bytes()).streams[0]
    texts = {
        b: "".join(e.text for e in stream.events if e.kind == "text" and e.block == b)
        for b in (first, last)
    }
    open_capture(page, server, (REAL / name).read_bytes(), name)
    play_to_end(page)
    drawn = page.evaluate(DRAWN)
    cards = [i for i, what in enumerate(drawn) if what.startswith("card:")]
    assert cards, drawn
    before, after = "".join(drawn[: cards[0]]), "".join(drawn[cards[-1] + 1 :])
    assert before == texts[first] and after == texts[last], drawn
    stretches = page.locator('[data-testid="choice-text"] > .block')
    assert stretches.count() == 2
    assert [stretches.nth(i).text_content() for i in range(2)] == [texts[first], texts[last]]


FALLBACK = sse(
    [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_f",
                    "type": "message",
                    "role": "assistant",
                    "model": "m",
                    "content": [],
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
        ),
        block(
            "start",
            0,
            content_block={
                "type": "fallback",
                "from": {"model": "m"},
                "to": {"model": "claude-fb-1"},
            },
        ),
        block("stop", 0),
        block("start", 1, content_block={"type": "text", "text": ""}),
        delta(1, type="text_delta", text="Served by the other model."),
        block("stop", 1),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 9},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
)


def test_a_fallback_block_shows_the_model_switch_where_it_came(page, server):
    """Issue 28, item 3: the final message's model is the fallback's (as the beta SDK says),
    and the page says so where the switch came, before the text the other model wrote."""
    open_capture(page, server, FALLBACK, "fallback")
    play_to_end(page)
    note = page.locator('[data-testid="block-note"][data-note="fallback"]')
    assert note.count() == 1
    assert note.text_content() == "model switched to claude-fb-1 (a fallback from m)"


IN_MESSAGE_START = sse(
    [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_p",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-x",
                    "content": [
                        {"type": "tool_use", "id": "toolu_9", "name": "run_code", "input": {"n": 1}}
                    ],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 5, "output_tokens": 3},
                },
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
)


def test_a_tool_call_sent_inside_message_start_is_drawn_as_its_card(page, server):
    """Issue 28, item 2, in the page: programmatic tool calling's tool_use inside
    message_start is a tool card with its arguments, and the stop reason is tool_use."""
    open_capture(page, server, IN_MESSAGE_START, "inside message_start")
    play_to_end(page)
    card = page.get_by_test_id("tool-call")
    assert card.count() == 1
    assert card.get_by_test_id("tool-name").text_content() == "run_code"
    assert '"n"' in card.text_content()
    assert "tool_use" in page.get_by_test_id("finish-reason").text_content()
