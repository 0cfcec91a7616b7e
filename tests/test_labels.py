"""What each dialect says the page shows of it (issue 27, section 3; app/domain/dialects/labels.py):
the block views and labels the server sends, read from the dialects' own payloads. These are the
cases tests/js/dialects.test.mjs checked in the browser's JS before the JS stopped naming
dialects, with the same payloads and the same shown values; the JS test now feeds these views
to the page's block state."""

from __future__ import annotations

import orjson
import pytest

from app.captures import read_capture
from app.demos import catalog, find
from app.domain.dialects import DIALECTS, by_name
from app.domain.dialects.labels import ROLES
from app.domain.events import BlockDelta, BlockStart, BlockStop, Citation, Extra, Payload
from app.wire import StreamEncoder, capture_message

ANTHROPIC = by_name("anthropic-messages")
RESPONSES = by_name("openai-responses")
GEMINI = by_name("gemini")
COHERE = by_name("cohere")
BEDROCK = by_name("bedrock-converse")


def start(block: int, kind: str, value=None) -> BlockStart:
    return BlockStart(choice=0, block=block, type=kind, value=value)


def test_an_anthropic_tool_result_names_its_call_and_says_what_it_found():
    view = ANTHROPIC.view(
        start(
            2,
            "web_search_tool_result",
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {
                        "type": "web_search_result",
                        "title": "Weather",
                        "url": "https://example.com/w",
                    }
                ],
            },
        )
    )
    assert view == {
        "role": "tool_result",
        "result": {
            "for": {"id": "srvtoolu_1"},
            "lines": [{"label": "result", "text": "Weather", "url": "https://example.com/w"}],
        },
    }
    assert ANTHROPIC.view(start(0, "server_tool_use", {"id": "srvtoolu_1"})) == {
        "role": "server_call"
    }


def test_result_lines_keep_a_url_as_sent_the_card_decides_whether_it_is_a_link():
    hostile = {
        "tool_use_id": "x",
        "content": [
            {
                "type": "web_search_result",
                "title": "<img src=x onerror=alert(1)>",
                "url": "javascript:alert(1)",
            }
        ],
    }
    lines = ANTHROPIC.view(start(1, "web_search_tool_result", hostile))["result"]["lines"]
    assert lines == [
        {"label": "result", "text": "<img src=x onerror=alert(1)>", "url": "javascript:alert(1)"}
    ]
    error = {
        "tool_use_id": "x",
        "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
    }
    lines = ANTHROPIC.view(start(1, "web_search_tool_result", error))["result"]["lines"]
    assert lines == [{"label": "error", "text": "max_uses_exceeded", "url": None}]


def test_gemini_code_is_a_server_call_and_its_result_answers_the_code_before_it():
    code = GEMINI.view(
        start(1, "executableCode", {"executableCode": {"language": "PYTHON", "code": "print(1)"}})
    )
    assert code == {
        "role": "server_call",
        "item": True,
        "name": "executableCode (PYTHON)",
        "id": None,
        "code": "print(1)",
        "status": "code",
    }
    result = GEMINI.view(
        start(
            2,
            "codeExecutionResult",
            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        )
    )
    assert result["result"]["for"] == "previous"
    assert [f"{x['label']}={x['text']}" for x in result["result"]["lines"]] == [
        "outcome=OUTCOME_OK",
        "output=1\n",
    ]
    assert GEMINI.view(start(0, "functionCall")) == {"role": "tool_call"}


def test_redacted_and_encrypted_reasoning_are_notes_of_their_size():
    assert ANTHROPIC.view(
        start(1, "redacted_thinking", {"type": "redacted_thinking", "data": "EqkECkYIBxgCKkA8"})
    ) == {
        "role": "reasoning",
        "notes": [{"note": "redacted", "text": "redacted thinking (16 bytes)"}],
    }
    opened = RESPONSES.view(
        start(2, "reasoning", {"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAA"})
    )
    assert opened["notes"] == [{"note": "encrypted", "text": "encrypted reasoning (5 bytes)"}]
    done = {"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAAABo-longer"}
    closed = RESPONSES.view(BlockStop(choice=0, block=2, value=done))
    assert closed["notes"] == [{"note": "encrypted", "text": "encrypted reasoning (15 bytes)"}]
    redacted = BlockDelta(choice=0, block=3, field="redactedContent", text="abc")
    assert BEDROCK.view(redacted) == {
        "as": "note",
        "note": "redacted",
        "words": "redacted reasoning",
    }


def test_a_compaction_summary_is_its_own_block():
    assert ANTHROPIC.view(start(0, "compaction", {"type": "compaction", "content": None})) == {
        "role": "compaction",
        "text": "",
    }
    delta = BlockDelta(choice=0, block=0, field="content", text="The user asked ")
    assert ANTHROPIC.view(delta) == {"as": "text"}


def test_responses_server_items_have_their_progress_and_their_done_items_result():
    item = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    assert RESPONSES.view(start(1, "web_search_call", item)) == {
        "role": "server_call",
        "item": True,
        "name": "web_search_call",
        "id": "ws_1",
        "code": None,
        "status": "in_progress",
    }
    progress = Payload(
        category="server_tool",
        summary="web_search_call searching",
        value={"type": "response.web_search_call.searching", "output_index": 1},
    )
    assert RESPONSES.view(progress) == {"block": 1, "status": "searching"}
    done = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {
            "type": "search",
            "query": "weather",
            "sources": [{"type": "url", "url": "javascript:alert(1)"}],
        },
    }
    view = RESPONSES.view(BlockStop(choice=0, block=1, value=done))
    assert view["status"] == "completed"
    assert view["result"] == {
        "for": "self",
        "lines": [
            {"label": "query", "text": "weather", "url": None},
            {"label": "source", "text": "javascript:alert(1)", "url": "javascript:alert(1)"},
        ],
    }
    # A function call item is a call whose tool_start makes its card, not an item card.
    assert RESPONSES.view(start(2, "function_call", {"call_id": "call_1"})) == {"role": "tool_call"}


def cite(dialect, value) -> dict:
    return dialect.view(Citation(choice=0, block=0, value=value))


def test_citations_of_every_dialect_in_one_shape():
    anthropic = cite(
        ANTHROPIC,
        {
            "type": "web_search_result_location",
            "url": "https://w.example/",
            "title": "W",
            "cited_text": "Sunny",
        },
    )
    assert anthropic == {
        "role": "citation",
        "kind": "web_search_result_location",
        "sources": [{"title": "W", "url": "https://w.example/"}],
        "quote": "Sunny",
        "span": None,
        "at": None,
    }
    responses = cite(
        RESPONSES,
        {
            "type": "url_citation",
            "url": "https://r.example/",
            "title": "R",
            "start_index": 6,
            "end_index": 11,
        },
    )
    assert responses["at"] == [6, 11]  # "world" of "Hello world!"
    gemini = cite(
        GEMINI,
        {
            "segment": {"startIndex": 0, "endIndex": 5, "text": "Hello"},
            "groundingChunkIndices": [0, 7],
        },
    )
    assert (gemini["refs"], gemini["span"], gemini["missing"]) == (
        [0, 7],
        "Hello",
        "(grounding chunk not sent)",
    )
    grounding = {"groundingChunks": [{"web": {"uri": "https://g.example/", "title": "g.example"}}]}
    extra = Extra(scope="choice", choice=0, fields={"groundingMetadata": grounding})
    assert GEMINI.view(extra) == {"sources": [{"title": "g.example", "url": "https://g.example/"}]}
    cohere = cite(
        COHERE,
        {
            "start": 0,
            "end": 5,
            "text": "Hello",
            "sources": [
                {
                    "type": "document",
                    "id": "d1",
                    "document": {
                        "title": "Doc",
                        "snippet": "a snippet",
                        "url": "https://c.example/",
                    },
                }
            ],
        },
    )
    assert (cohere["sources"], cohere["quote"], cohere["span"]) == (
        [{"title": "Doc", "url": "https://c.example/"}],
        "a snippet",
        "Hello",
    )


def test_metrics_count_chunks_with_choices_only_where_the_dialect_has_choices():
    for dialect in DIALECTS:
        unit = dialect.labels.unit
        if dialect.name in ("chat-completions", "completions"):
            assert unit.one == "chunk with choices", dialect.name
        else:
            assert "choices" not in f"{unit.one} {unit.many} {unit.trailing}", dialect.name
            assert unit.one == "event with output", dialect.name


def test_outputs_are_called_as_before():
    names = {d.name: (d.labels.output, d.labels.numbered) for d in DIALECTS}
    assert names["gemini"] == ("Candidate", True)
    assert names["chat-completions"] == names["completions"] == ("Choice", True)
    for name in ("anthropic-messages", "openai-responses", "cohere", "bedrock-converse", "ollama"):
        assert names[name] == ("Answer", False)


@pytest.mark.parametrize("name", sorted(catalog()))
def test_every_view_of_every_demo_has_a_known_role_and_is_json(name):
    streams = read_capture(find(name).read_bytes()).streams
    message = capture_message(
        title="t",
        source={},
        fmt=None,
        compression=None,
        streams=streams,
        diagnostics=[],
        pace_ms=40.0,
        stall_ms=250.0,
    )
    infos = orjson.loads(message)["streams"]
    for stream, info in zip(streams, infos, strict=True):
        events = [
            e
            for batch in StreamEncoder(stream).event_messages(0)
            for e in orjson.loads(batch)["events"]
        ]
        views = [e["view"] for e in events if "view" in e]
        assert all(v.get("role", "text") in ROLES for v in views)
        if stream.dialect_name in ("chat-completions", "completions", "ollama", None):
            assert views == []
        assert (
            info["labels"]
            == (by_name(stream.dialect_name) or by_name("chat-completions")).labels.to_json()
        )
