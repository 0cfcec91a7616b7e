"""Compare (docs/teaching.md): the token diff is a shortest edit script, the URL form of the
sides, and every dialect compared on a real server, its diff and metrics checked against
``streamscope inspect --json``."""

from __future__ import annotations

import html
import itertools
import json
import re
import subprocess
import sys
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.demos import catalog
from app.domain.compare import metric_rows, output_timing, tool_pairs
from app.domain.events import TextDelta, ToolCallArgs
from app.domain.textdiff import diff_texts, edit_script, word_tokens
from app.web.errors import BadRequest
from app.web.http.compare import SideRef, parse_side, split_sides

from .live_server import ROOT, LiveServer


def lcs_length(a: list[str], b: list[str]) -> int:
    """The longest common subsequence's length, by the textbook table."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def rebuilt(pieces, keep: str) -> str:
    return "".join(p.text for p in pieces if p.op in ("same", keep))


WORDS = st.lists(st.sampled_from(["a", "b", "c", " ", ".", "é", "\n"]), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(WORDS, WORDS)
def test_the_diff_rebuilds_both_texts_and_keeps_a_longest_common_subsequence(a, b):
    diff = diff_texts(a, b)
    assert diff.aligned
    assert rebuilt(diff.pieces, "removed") == a and rebuilt(diff.pieces, "added") == b
    assert diff.same == lcs_length(word_tokens(a), word_tokens(b))
    assert diff.removed == len(word_tokens(a)) - diff.same
    assert diff.added == len(word_tokens(b)) - diff.same
    ops = [p.op for p in diff.pieces]
    assert all(x != y for x, y in itertools.pairwise(ops)), "runs are merged"


def test_tokens_are_words_spaces_and_marks():
    assert word_tokens('Hi,  "San Francisco"!\n') == [
        "Hi",
        ",",
        "  ",
        '"',
        "San",
        " ",
        "Francisco",
        '"',
        "!",
        "\n",
    ]
    diff = diff_texts("The cat sat.", "The dog sat.")
    assert [(p.op, p.text) for p in diff.pieces] == [
        ("same", "The "),
        ("removed", "cat"),
        ("added", "dog"),
        ("same", " sat."),
    ]


def test_texts_too_far_apart_are_shown_whole():
    a, b = " ".join(f"a{i}" for i in range(300)), " ".join(f"b{i}" for i in range(300))
    diff = diff_texts(a, b, max_edits=100)
    assert not diff.aligned and "100" in diff.note
    assert [(p.op, p.text) for p in diff.pieces] == [("removed", a), ("added", b)]
    assert edit_script(["x"] * 5, ["y"] * 5, 9) is None
    assert edit_script(["x"] * 5, ["y"] * 5, 10) is not None


def test_the_sides_url_form():
    assert parse_side("abcDEF_-12") == SideRef("abcDEF_-12", 0, 0)
    assert parse_side("abc:2") == SideRef("abc", 0, 2)
    assert parse_side("abc:1.3") == SideRef("abc", 1, 3)
    assert parse_side("demos/n3-choices:1") == SideRef("demos/n3-choices", 0, 1)
    assert split_sides("demos/a:1/xyz") == (SideRef("demos/a", 0, 1), SideRef("xyz"))
    assert split_sides("abc/abc:1") == (SideRef("abc"), SideRef("abc", 0, 1))
    assert SideRef("demos/a", 1, 2).spec == "demos/a:1.2" and SideRef("x", 0, 1).spec == "x:1"
    assert SideRef("demos/a").open == {"demo": "a"} and SideRef("x").open == {"capture": "x"}
    for bad in ("", "a b", "demos/", "x:y", "../etc", "a:1:2"):
        with pytest.raises(BadRequest):
            parse_side(bad)
    for bad in ("one", "a/b/c", "demos/x", "demos"):
        with pytest.raises(BadRequest):
            split_sides(bad)


def test_rows_and_tool_pairs():
    metrics = {"ttft_ms": 100.0, "chunks": 4, "stalls": [{"gap": 300}]}
    a = {
        "metrics": metrics,
        "normalized": {"usage": {"input_tokens": 5, "output_tokens": 9}},
        "dialect": "chat-completions",
    }
    b = {
        "metrics": {**metrics, "ttft_ms": 150.0, "stalls": []},
        "normalized": {"usage": None},
        "dialect": "anthropic-messages",
    }
    out = {"text": "a b", "reasoning": "", "tool_calls": [], "stop_reason": "stop"}
    rows = {r.key: r for r in metric_rows(a, b, out, {**out, "stop_reason": "end_turn"})}
    assert rows["metrics.ttft_ms"].difference == 50.0 and rows["metrics.ttft_ms"].ratio == 1.5
    assert rows["metrics.stalls"].difference == -1
    assert (
        rows["normalized.usage.input_tokens"].b is None
        and rows["normalized.usage.input_tokens"].difference is None
    )
    assert not rows["normalized.stop_reason"].same and rows["dialect"].a == "chat-completions"
    pairs = tool_pairs(
        [{"name": "f", "arguments": '{"a": 1, "b": 2}'}, {"name": "g", "arguments": "{"}],
        [{"name": "f", "arguments": '{"b":2,"a":1}'}],
    )
    assert pairs[0].same_name and pairs[0].same_arguments, "same JSON, other spacing and order"
    assert pairs[1].b is None and not pairs[1].same_name


def test_each_output_has_its_own_first_and_last_token():
    events = [
        TextDelta(seq=0, t=10.0, choice=0, text="a"),
        TextDelta(seq=1, t=12.0, choice=1, text="b"),
        ToolCallArgs(seq=2, t=30.0, choice=1, call=0, text="{"),
        TextDelta(seq=3, t=None, choice=1, text="c"),
    ]
    assert output_timing(events, 0) == {"first_ms": 10.0, "last_ms": 10.0, "events": 1}
    assert output_timing(events, 1) == {"first_ms": 12.0, "last_ms": 30.0, "events": 3}
    assert output_timing(events, 2) == {"first_ms": None, "last_ms": None, "events": 0}


# ---------------------------------------------------------------------- on a real server
@cache
def inspect_json(name: str) -> dict:
    """``streamscope inspect --json`` of a bundled demo, as the command prints it."""
    path = catalog()[name].path
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", str(path), "--json"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


def fetch(server, path: str) -> tuple[int, str]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def pieces_of(page: str, lane: str = "answer") -> list[tuple[str, str]]:
    box = re.search(rf'data-testid="diff" data-lane="{lane}">(.*?)</div>', page, re.S).group(1)
    return [
        (op, html.unescape(text))
        for op, text in re.findall(r'data-op="(\w+)">(.*?)</span>', box, re.S)
    ]


def metric_values(page: str) -> dict[str, tuple]:
    rows = re.findall(r"<tr data-metric=\"([\w.]+)\" data-a='(.*?)' data-b='(.*?)'", page)
    return {key: (json.loads(html.unescape(a)), json.loads(html.unescape(b))) for key, a, b in rows}


def check_against_inspect(page: str, a: tuple[str, int], b: tuple[str, int]) -> None:
    """The page's diff and metrics are what ``inspect --json`` says of both sides."""
    (name_a, choice_a), (name_b, choice_b) = a, b
    stream_a, stream_b = inspect_json(name_a)["streams"][0], inspect_json(name_b)["streams"][0]
    outputs_a = {o["index"]: o for o in stream_a["normalized"]["outputs"]}
    outputs_b = {o["index"]: o for o in stream_b["normalized"]["outputs"]}
    text_a = outputs_a.get(choice_a, {"text": ""})["text"]
    text_b = outputs_b.get(choice_b, {"text": ""})["text"]
    pieces = pieces_of(page)
    assert "".join(t for op, t in pieces if op != "added") == text_a
    assert "".join(t for op, t in pieces if op != "removed") == text_b
    facts = re.search(r'data-lane="answer" data-same="(\d+)" .*?data-aligned="(\w+)"', page)
    same = sum(len(word_tokens(t)) for op, t in pieces if op == "same")
    assert same == int(facts.group(1))
    if facts.group(2) == "true":  # a shortest edit script: a longest common subsequence kept
        assert same == lcs_length(word_tokens(text_a), word_tokens(text_b))
    else:  # too far apart: both texts whole
        assert same == 0 and [op for op, _ in pieces] == [
            op for op, t in (("removed", text_a), ("added", text_b)) if t
        ]
    values = metric_values(page)
    for key in (
        "ttft_ms",
        "ttfo_ms",
        "e2el_ms",
        "itl_p50_ms",
        "itl_p95_ms",
        "tpot_ms",
        "tokens_per_s",
        "output_tokens",
        "chunks",
    ):
        assert values[f"metrics.{key}"] == (stream_a["metrics"][key], stream_b["metrics"][key]), key
    usage_a = stream_a["normalized"]["usage"] or {}
    usage_b = stream_b["normalized"]["usage"] or {}
    assert values["normalized.usage.output_tokens"] == (
        usage_a.get("output_tokens"),
        usage_b.get("output_tokens"),
    )
    assert values["dialect"] == (stream_a["dialect"], stream_b["dialect"])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("compare-data")).start()
    yield live
    live.stop()


@pytest.mark.integration
@pytest.mark.parametrize("name", sorted(catalog()))
def test_every_dialect_compares_with_another(server, name):
    other = "anthropic-thinking" if name == "plain-text" else "plain-text"
    status, page = fetch(server, f"/compare/demos/{name}/demos/{other}")
    assert status == 200, page[:500]
    check_against_inspect(page, (name, 0), (other, 0))
    assert f'data-demo="{name}"' in page and f'data-demo="{other}"' in page


@pytest.mark.integration
def test_two_choices_of_one_capture_and_the_form_that_leads_there(server):
    status, page = fetch(server, "/compare/demos/n3-choices:0/demos/n3-choices:2")
    assert status == 200
    check_against_inspect(page, ("n3-choices", 0), ("n3-choices", 2))
    assert "Stream 1 / Choice 2" in page  # numbered as the player numbers it (issue 28, item 18)
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", f"/compare?a=demos/n3-choices&b={server.url}/demos/n3-choices")
    response = connection.getresponse()
    assert response.status == 302
    assert response.getheader("Location").endswith("/compare/demos/n3-choices/demos/n3-choices")
    connection.close()
    for path, code in (
        ("/compare/demos/n3-choices:7/demos/plain-text", 404),
        ("/compare/demos/n3-choices:1.0/demos/plain-text", 404),
        ("/compare/demos/nope/demos/plain-text", 404),
        ("/compare/only-one", 400),
        ("/compare?a=demos/plain-text&b=https://example.com/elsewhere", 400),
    ):
        assert fetch(server, path)[0] == code, path


def test_two_unknowns_are_unknown_not_the_same():
    """A value neither side knows (no timing on either) is "unknown", never "same" (issue 28,
    item 18: the compare table said "same" for two unknowns)."""
    a = {"metrics": {"ttft_ms": None}, "normalized": {"usage": None}, "dialect": "gemini"}
    out = {"text": "", "reasoning": "", "tool_calls": [], "stop_reason": None}
    rows = {r.key: r for r in metric_rows(a, dict(a), out, dict(out))}
    assert rows["metrics.ttft_ms"].unknown and not rows["metrics.ttft_ms"].same
    assert rows["normalized.stop_reason"].unknown and not rows["normalized.stop_reason"].same
    assert rows["dialect"].same and not rows["dialect"].unknown


def test_the_page_numbers_sides_as_the_player_and_says_which_side_is_missing(client):
    """Its sides are numbered as the player numbers them ("Stream 1 / Choice 0"), two unknowns
    read "unknown", and a side that cannot be loaded is named in the error (issue 28, item 18)."""
    host = {"Host": "127.0.0.1:5000"}
    page = client.get("/compare/demos/completions-text/demos/anthropic-thinking", headers=host)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Stream 1 / Choice 0" in text and "Stream 1 / Answer" in text
    assert "stream 0, output 0" not in text
    cells = re.findall(r'<td class="difference">([^<]*)</td>', text)
    assert "unknown" in cells
    missing = client.get(
        "/compare/demos/plain-text/nosuchcapture000000000000",
        headers={**host, "Accept": "application/json"},
    )
    assert missing.status_code == 404
    error = missing.get_json()["error"]
    assert error["message"].startswith("side B: ") and error["side"] == "b"
