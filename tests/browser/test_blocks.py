"""Issue 27, section 3: the page draws a choice's blocks in the order they began, interleaved.
An Anthropic answer that goes text, tool_use, text is drawn as the text, then the tool card,
then the rest of the text (before, the whole text was drawn above every card)."""

from __future__ import annotations

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
