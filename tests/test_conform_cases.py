"""Each conform case's check on hand-made answers: the clean one passes, a broken one fails
(or warns) and says why; and the verdict rules of app/conform/judge.py (docs/conform.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from app.cli import main
from app.conform.card import document, junit, text
from app.conform.cases import BY_NAME, CASES
from app.conform.judge import assess
from app.conform.model import VERDICTS, Result
from app.conform.runner import Battery, Options
from app.domain.findings.model import Finding
from app.live.apis import api_named

from .conform_kit import (
    ANTHROPIC,
    COMPLETIONS,
    CTX,
    RESPONSES,
    chunk,
    clean,
    clean_anthropic,
    clean_completions,
    clean_responses,
    completion,
    delta,
    result,
    run_of,
    text_stream,
)
from .fake_conform import ResponsesConform

NAMES = [
    "plain",
    "long",
    "unicode",
    "stop-sequence",
    "max-tokens",
    "include-usage",
    "no-usage",
    "usage",
    "n2",
    "logprobs",
    "tool-single",
    "tool-parallel",
    "tool-required",
    "tool-none",
    "tool-result-turn",
    "json-schema",
    "reasoning",
    "bad-request",
    "disconnect",
    "concurrent",
]


# The chat battery: every case but the one in Anthropic's terms only (``usage``).
CHAT_CASES = [case.name for case in CASES if "chat" in case.apis]


def clean_result(name: str) -> Result:
    case = BY_NAME[name]
    runs = [clean(case) for _ in range(case.copies)]
    if case.hangup:
        runs[0].hung_up = True
    if case.then is not None:
        runs.append(clean(case, case.then(CTX, runs[0])))
    return result(*runs)


def test_the_registry_holds_the_issues_cases_in_its_order():
    assert [case.name for case in CASES] == NAMES
    for case in CASES:
        assert case.apis and case.expects.endswith(".")
        assert case.answer in ("stream", "error")


def test_the_chat_battery_is_every_case_but_anthropics_usage():
    assert [n for n in NAMES if n != "usage"] == CHAT_CASES


@pytest.mark.parametrize("name", [n for n in CHAT_CASES if n != "bad-request"])
def test_a_clean_answer_passes(name):
    verdict = BY_NAME[name].check(clean_result(name))
    assert verdict.verdict == "pass", verdict.why


def call_chunks(calls, id="chatcmpl-1"):
    out = [chunk([delta(role="assistant", content=None)], id=id)]
    for number, (call_id, name, args) in enumerate(calls):
        opened = {"index": number, "id": call_id, "type": "function"}
        opened["function"] = {"name": name, "arguments": args}
        out.append(chunk([delta(tool_calls=[opened])], id=id))
    return out


def tool_answer(calls, finish="tool_calls"):
    return [*call_chunks(calls), chunk([delta(finish=finish)]), "[DONE]"]


BROKEN = {
    "plain": (run_of(text_stream(["Hi"], finish="length")), "finish length"),
    "long": (run_of(text_stream(["x" * 900])), "one chunk"),
    "unicode": (run_of(text_stream(["Gr\ufffd\ufffde"])), "U+FFFD"),
    "stop-sequence": (run_of(text_stream(["one two STOP four"])), "is in the text"),
    "max-tokens": (run_of(text_stream(["1 2 3 4 5"], finish="stop")), "expected `length`"),
    "include-usage": (
        run_of(
            [
                *text_stream(["Hi"])[:-1],
                chunk(
                    [delta()],
                    usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                ),
                "[DONE]",
            ]
        ),
        "`choices: [{",
    ),
    "no-usage": (
        run_of(
            [
                *text_stream(["Hi"])[:-1],
                chunk([], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}),
                "[DONE]",
            ]
        ),
        "carried usage",
    ),
    "n2": (run_of(text_stream(["Hi"])), "choices [0] came"),
    "logprobs": (run_of(text_stream(["Hi"])), "no logprobs came"),
    "tool-single": (run_of(text_stream(["It is sunny."])), "no tool call"),
    "tool-parallel": (
        run_of(
            tool_answer([("call_1", "get_weather", '{"city":'), ("call_2", "get_weather", "{}")])
        ),
        "not JSON",
    ),
    "tool-required": (run_of(text_stream(["Hello"])), "no tool call"),
    "tool-none": (
        run_of(tool_answer([("call_1", "get_weather", '{"city": "Paris"}')])),
        "tool call",
    ),
    "json-schema": (run_of(text_stream(['{"city": "Paris"}'])), "lacks 'population'"),
    "reasoning": (run_of(text_stream(["<think>hmm</think>391"])), "leaked"),
    "bad-request": (run_of(text_stream(["Hello"])), "HTTP 200"),
    "concurrent": (
        run_of(text_stream(["Hi"], id="same")),
        "share the id",
    ),
}


@pytest.mark.parametrize(
    "name", [n for n in CHAT_CASES if n not in ("disconnect", "tool-result-turn")]
)
def test_a_broken_answer_fails_and_says_why(name):
    run, said = BROKEN[name]
    runs = [run, run] if name == "concurrent" else [run]
    verdict = BY_NAME[name].check(result(*runs))
    assert verdict.verdict == "fail", verdict.why
    assert said in verdict.why


def test_tool_result_turn_fails_when_the_result_gets_another_call():
    first = clean(BY_NAME["tool-single"])
    second = run_of(tool_answer([("call_9", "get_weather", '{"city": "Paris"}')]))
    verdict = BY_NAME["tool-result-turn"].check(result(first, second))
    assert verdict.verdict == "fail" and "another tool call" in verdict.why


def test_tool_result_turn_sends_the_first_calls_id_and_the_result():
    case = BY_NAME["tool-result-turn"]
    first = clean(BY_NAME["tool-single"])
    body = case.then(CTX, first)
    assistant, tool = body["messages"][-2:]
    call_id = first.calls()[0].id
    assert assistant["tool_calls"][0]["id"] == call_id == tool["tool_call_id"]
    made_up = case.then(CTX, run_of(text_stream(["No call."])))
    assert made_up["messages"][-1]["tool_call_id"] == "call_conform_1"


def test_disconnect_warns_when_the_next_first_token_is_late():
    case = BY_NAME["disconnect"]
    hung = run_of(text_stream(["1 "] * 3), reason="cancelled", hung_up=True)
    late = run_of(text_stream(["Hello"]), gap_ms=3000)
    verdict = case.check(result(hung, late))
    assert verdict.verdict == "warn" and "gone on generating" in verdict.why
    not_hung = run_of(text_stream(["1 "]))
    assert case.check(result(not_hung, late)).verdict == "fail"


def test_tool_parallel_warns_on_one_call_and_fails_on_a_shared_index():
    case = BY_NAME["tool-parallel"]
    one = run_of(tool_answer([("call_1", "get_weather", '{"city": "Paris"}')]))
    assert case.check(result(one)).verdict == "warn"
    chunks = call_chunks([("call_1", "get_weather", '{"city": "Paris"}')])
    second = {"index": 0, "id": "call_2", "type": "function"}
    second["function"] = {"name": "get_weather", "arguments": '{"city": "Tokyo"}'}
    chunks.append(chunk([delta(tool_calls=[second])]))
    shared = run_of([*chunks, chunk([delta(finish="tool_calls")]), "[DONE]"])
    verdict = case.check(result(shared))
    assert verdict.verdict == "fail", verdict.why


def test_unicode_fails_on_half_a_surrogate_pair_in_a_chunk():
    # "👋" as the JSON escape \ud83d\udc4b, cut between the two halves
    first = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"\\ud83d"},"finish_reason":null}]}\n\n'
    second = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"\\udc4b"},"finish_reason":"stop"}]}\n\n'
    run = run_of(body=first + second + b"data: [DONE]\n\n")
    verdict = BY_NAME["unicode"].check(result(run))
    assert verdict.verdict == "fail" and "surrogate" in verdict.why


def test_reasoning_without_reasoning_is_unsupported():
    verdict = BY_NAME["reasoning"].check(result(run_of(text_stream(["391"]))))
    assert verdict.verdict == "unsupported"


def test_bad_request_wants_a_json_error_body():
    case = BY_NAME["bad-request"]
    error = json.dumps({"error": {"message": "messages must be a list"}}).encode()
    good = run_of(status=400, content_type="application/json", body=error)
    assert case.check(result(good)).verdict == "pass"
    html = run_of(status=400, content_type="text/html", body=b"<h1>Bad Request</h1>")
    verdict = case.check(result(html))
    assert verdict.verdict == "fail" and "not a JSON error" in verdict.why
    server = run_of(status=500, content_type="application/json", body=error)
    assert case.check(result(server)).verdict == "warn"


# ---------------------------------------------------------------------- verdicts (judge.py)
ERROR_400 = json.dumps(
    {"error": {"message": "n is not supported", "type": "invalid_request_error"}}
)


def test_the_documented_400_of_an_optional_parameter_is_unsupported():
    refused = run_of(status=400, content_type="application/json", body=ERROR_400.encode())
    report = assess(BY_NAME["n2"], result(refused))
    assert report.verdict == "unsupported" and "n is not supported" in report.why
    # plain sends nothing optional: the same answer fails it
    assert assess(BY_NAME["plain"], result(refused)).verdict == "fail"
    # a 400 that is not a JSON error is not the documented refusal
    html = run_of(status=400, content_type="text/html", body=b"<h1>no</h1>")
    assert assess(BY_NAME["n2"], result(html)).verdict == "fail"


def test_no_answer_fails_and_says_why():
    report = assess(BY_NAME["plain"], result(run_of([], status=200, reason="error")))
    assert report.verdict == "fail"


def test_an_error_finding_fails_a_passing_case_and_a_warning_warns():
    # tool-call-index-missing (error): a call without its index
    call = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    payloads = [
        chunk([delta(role="assistant", content=None)]),
        chunk([delta(tool_calls=[call])]),
        chunk([delta(finish="tool_calls")]),
        "[DONE]",
    ]
    report = assess(BY_NAME["tool-single"], result(run_of(payloads)))
    assert report.verdict == "fail", report.why
    assert "tool-call-index-missing (error)" in report.why
    assert {f["rule"] for f in report.findings} >= {"tool-call-index-missing"}
    # done-missing is a warning: the plain check itself fails on it, so use usage-unrequested
    body = {"model": "m", "messages": [], "stream": True}
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    extra = [*text_stream(["Hi"])[:-1], chunk([], usage=usage), "[DONE]"]
    report = assess(BY_NAME["plain"], result(run_of(extra, request=body)))
    assert report.verdict == "warn", report.why
    assert "usage-unrequested (warning)" in report.why


def test_judges_that_differ_warn_and_judges_that_crash_fail():
    run = clean(BY_NAME["plain"])
    differs = assess(
        BY_NAME["plain"], result(run), judge=lambda s: [{"client": "a", "verdict": "differs"}]
    )
    assert differs.verdict == "warn" and "judge a differs" in differs.why
    crash = assess(
        BY_NAME["plain"], result(run), judge=lambda s: [{"client": "b", "verdict": "crash"}]
    )
    assert crash.verdict == "fail"
    fine = assess(BY_NAME["plain"], result(run), judge=lambda s: [{"client": "c", "verdict": "ok"}])
    assert fine.verdict == "pass" and fine.judges == [{"client": "c", "verdict": "ok"}]


def test_a_check_that_cannot_read_the_answer_fails_plainly():
    case = BY_NAME["plain"]
    broken = type(case)(**{**case.__dict__, "check": lambda result: 1 / 0})
    report = assess(broken, result(clean(case)))
    assert report.verdict == "fail" and "ZeroDivisionError" in report.why


def test_a_hung_up_run_is_not_judged_by_the_rules():
    case = BY_NAME["disconnect"]
    hung = run_of(text_stream(["1 "] * 3)[:2], reason="cancelled", hung_up=True)
    report = assess(case, result(hung, clean(BY_NAME["plain"])))
    assert report.verdict == "pass", report.why
    assert not any(f.get("run") == 1 for f in report.findings)
    assert report.metrics is not None and report.metrics["ttft_ms"] is not None


# ---------------------------------------------------------------------- docs/conform.md
DOC = Path(__file__).resolve().parent.parent / "docs" / "conform.md"


def keys_of(document: dict) -> dict[str, set[str]]:
    """The keys of each part of a ``--json`` document (the first case's, its first finding's
    and its metrics')."""
    case = document["cases"][0]
    keys = {
        "top": set(document),
        "server": set(document["server"]),
        "case": set(case),
        "summary": set(document["summary"]),
    }
    if case["metrics"] is not None:
        keys["metrics"] = set(case["metrics"])
    if case["findings"]:
        keys["finding"] = set(case["findings"][0])
    return keys


def documented_keys() -> dict[str, set[str]]:
    text = DOC.read_text()
    block = text.split("## `--json`", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    return keys_of(json.loads(block))


def test_the_documented_json_has_the_codes_keys():
    documented = documented_keys()
    case = BY_NAME["reasoning"]
    report = assess(case, result(clean(case)))
    report.captures = ["out/reasoning.jsonl"]
    battery = Battery([report], True, None, 12.0)
    options = Options(base_url="http://127.0.0.1:8000/v1", api=api_named("chat"), model="conform")
    made = document(options, battery, "2026-01-01T00:00:00Z")
    assert keys_of(made) == documented
    assert set(documented["finding"]) == set(
        Finding(rule="r", severity="info", title="t", message="m").to_json()
    )
    assert set(made["summary"]) == {"cases", "passed", "rules", *VERDICTS}


def test_the_doc_lists_every_case_with_what_it_expects():
    rows = re.findall(
        r"^\| `([a-z0-9-]+)` \| ([a-z, ]+) \| (.+) \| (yes|no) \|$", DOC.read_text(), re.M
    )
    assert rows == [
        (case.name, ", ".join(case.apis), case.expects, "yes" if case.optional else "no")
        for case in CASES
    ]


def test_the_card_and_junit_have_a_row_and_a_test_case_per_case():
    reports = [assess(BY_NAME[n], clean_result(n)) for n in ("plain", "n2")]
    refused = run_of(status=400, content_type="application/json", body=ERROR_400.encode())
    reports.append(assess(BY_NAME["logprobs"], result(refused)))
    broken = run_of(text_stream(["Hi"], finish="length"))
    reports.append(assess(BY_NAME["plain"], result(broken)))
    battery = Battery(reports, True, None, 40.0)
    options = Options(base_url="http://h/v1", api=api_named("chat"), model="m")
    card = text(options, battery)
    assert "4 cases: 2 pass, 0 warn, 1 fail, 1 unsupported" in card
    assert "FAIL" in card and "unsupported" in card
    root = ET.fromstring(junit(options, battery))
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["plain", "n2", "logprobs", "plain"]
    assert cases[2].find("skipped") is not None and cases[3].find("failure") is not None
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "1")


# ---------------------------------------------------------------------- the command's input
def test_bad_arguments_exit_2_with_a_line(capsys, monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    for args, said in (
        (["--base-url", "ftp://x/v1"], "not an http(s) URL"),
        ([], "--base-url is required"),
        (["--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "NO_SUCH_KEY_VAR"], "is not set"),
        (["--base-url", "http://127.0.0.1:9/v1", "--concurrency", "0"], "--concurrency"),
        (["--base-url", "http://127.0.0.1:9/v1", "--api", "gemini"], "no case of the battery"),
        (["--base-url", "http://127.0.0.1:9/v1", "--only", "plain", "--skip", "plain"], "no case"),
    ):
        assert main(["conform", "--model", "m", *args]) == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err


def test_list_names_every_case(capsys):
    assert main(["conform", "--list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == CHAT_CASES  # the cases of --api chat, the default
    assert main(["conform", "--list", "--api", "anthropic"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == ANTHROPIC_CASES and "usage" in listed


# ---------------------------------------------------------------------- Anthropic Messages
ANTHROPIC_CASES = [case.name for case in CASES if "anthropic" in case.apis]


def clean_anthropic_result(name: str) -> Result:
    case = BY_NAME[name]
    runs = [clean_anthropic(case) for _ in range(case.copies)]
    if case.hangup:
        runs[0].hung_up = True
    if case.then is not None:
        body = api_named("anthropic").body(case.then(ANTHROPIC, runs[0]))
        runs.append(clean_anthropic(case, body))
    return result(*runs, api="anthropic")


def test_the_anthropic_battery_covers_the_same_ground():
    assert [
        n for n in NAMES if n not in ("include-usage", "no-usage", "n2", "logprobs", "json-schema")
    ] == ANTHROPIC_CASES


@pytest.mark.parametrize("name", [n for n in ANTHROPIC_CASES if n != "bad-request"])
def test_a_clean_anthropic_answer_passes(name):
    verdict = BY_NAME[name].check(clean_anthropic_result(name))
    assert verdict.verdict == "pass", verdict.why


def anthropic_text(pieces, reason="end_turn", stop_sequence=None):
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": {}}
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
            for p in pieces
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": stop_sequence},
            "usage": {"output_tokens": len(pieces)},
        },
        {"type": "message_stop"},
    ]


@pytest.mark.parametrize(
    ("name", "payloads", "said"),
    [
        ("plain", anthropic_text(["Hi"], reason="stop"), "expected one `end_turn`"),
        (
            "stop-sequence",
            anthropic_text(["one two"], "stop_sequence", None),
            "`stop_sequence` is None",
        ),
        ("stop-sequence", anthropic_text(["one two"], "end_turn"), "expected `stop_sequence`"),
        ("max-tokens", anthropic_text(["1 2"], "end_turn"), "expected `max_tokens`"),
        ("tool-single", anthropic_text(["Sunny."]), "no tool call"),
        ("reasoning", anthropic_text(["<thinking>x</thinking>391"]), "leaked"),
    ],
)
def test_a_broken_anthropic_answer_fails(name, payloads, said):
    run = run_of(payloads, api="anthropic")
    verdict = BY_NAME[name].check(result(run, api="anthropic"))
    assert verdict.verdict == "fail" and said in verdict.why, verdict.why


def test_anthropic_requests_are_anthropics_bodies():
    anthropic = api_named("anthropic")
    parallel = anthropic.body(BY_NAME["tool-parallel"].request(ANTHROPIC))
    assert "parallel_tool_calls" not in parallel and parallel["tools"][0]["input_schema"]
    thinking = anthropic.body(BY_NAME["reasoning"].request(ANTHROPIC))
    assert thinking["thinking"]["budget_tokens"] < thinking["max_tokens"]
    assert "reasoning_effort" not in thinking
    assert anthropic.body(BY_NAME["stop-sequence"].request(ANTHROPIC))["stop_sequences"] == ["STOP"]
    first = clean_anthropic(BY_NAME["tool-single"])
    turn = anthropic.body(BY_NAME["tool-result-turn"].then(ANTHROPIC, first))
    use, result_ = turn["messages"][-2]["content"][0], turn["messages"][-1]["content"][0]
    assert use["type"] == "tool_use" and use["input"] == {"city": "Paris"}
    assert result_["type"] == "tool_result" and result_["tool_use_id"] == use["id"]


# ---------------------------------------------------------------------- OpenAI Responses
RESPONSES_CASES = [case.name for case in CASES if "responses" in case.apis]


def clean_responses_result(name: str) -> Result:
    case = BY_NAME[name]
    runs = [clean_responses(case) for _ in range(case.copies)]
    if case.hangup:
        runs[0].hung_up = True
    if case.then is not None:
        body = api_named("responses").body(case.then(RESPONSES, runs[0]))
        runs.append(clean_responses(case, body))
    return result(*runs, api="responses")


def test_the_responses_battery_leaves_out_what_responses_cannot_ask():
    left_out = ("stop-sequence", "include-usage", "no-usage", "usage", "n2")
    assert [n for n in NAMES if n not in left_out] == RESPONSES_CASES


@pytest.mark.parametrize("name", [n for n in RESPONSES_CASES if n != "bad-request"])
def test_a_clean_responses_answer_passes(name):
    verdict = BY_NAME[name].check(clean_responses_result(name))
    assert verdict.verdict == "pass", verdict.why


def test_responses_max_tokens_wants_the_incomplete_reason():
    case = BY_NAME["max-tokens"]
    body = api_named("responses").body(case.request(RESPONSES))
    assert body["max_output_tokens"] == 16 and "stream_options" not in body
    payloads = ResponsesConform(body).payloads()
    for payload in payloads:
        if payload["type"] == "response.incomplete":
            payload["response"].pop("incomplete_details")
    run = run_of(payloads, request=body, api="responses")
    verdict = case.check(result(run, api="responses"))
    assert verdict.verdict == "fail" and "incomplete_details.reason" in verdict.why


def test_responses_requests_are_responses_bodies():
    responses = api_named("responses")
    schema = responses.body(BY_NAME["json-schema"].request(RESPONSES))
    assert schema["text"]["format"]["type"] == "json_schema" and "response_format" not in schema
    reasoning = responses.body(BY_NAME["reasoning"].request(RESPONSES))
    assert reasoning["reasoning"] == {"effort": "low", "summary": "auto"}
    first = clean_responses(BY_NAME["tool-single"])
    turn = responses.body(BY_NAME["tool-result-turn"].then(RESPONSES, first))
    call, output = turn["input"][-2:]
    assert call["type"] == "function_call" and output["type"] == "function_call_output"
    assert call["call_id"] == output["call_id"] == first.calls()[0].id


def test_the_report_shows_the_base_url_without_its_credentials():
    key = "sk-abcdefgh12345678"
    url = f"https://user:secret@h.example/v1?api-key={key}&api-version=1"
    options = Options(base_url=url, api=api_named("chat"), model="m", api_key=key)
    battery = Battery([assess(BY_NAME["plain"], clean_result("plain"))], True, None, 1.0)
    shown = [
        text(options, battery),
        junit(options, battery).decode(),
        json.dumps(document(options, battery, "now")),
    ]
    for said in shown:
        assert key not in said and "secret" not in said and "h.example/v1" in said


# ---------------------------------------------------------------------- Anthropic's usage
def anthropic_usage(start: dict | None, *deltas: dict | None) -> list[dict]:
    """A text answer whose message_start has ``start`` as its usage (None: no usage) and one
    message_delta per ``deltas`` (None: a message_delta without usage)."""
    payloads = anthropic_text(["Hello"])
    message = payloads[0]["message"]
    message.pop("usage")
    if start is not None:
        message["usage"] = start
    finish = payloads[-2]
    out = payloads[:-2]
    for usage in deltas:
        step = {"type": "message_delta", "delta": finish["delta"]}
        if usage is not None:
            step["usage"] = usage
        out.append(step)
    return [*out, payloads[-1]]


def usage_verdict(payloads: list[dict]):
    return BY_NAME["usage"].check(result(run_of(payloads, api="anthropic"), api="anthropic"))


@pytest.mark.parametrize(
    ("payloads", "said"),
    [
        (anthropic_usage(None, {"output_tokens": 3}), "has no `usage`"),
        (anthropic_usage({"output_tokens": 1}, {"output_tokens": 3}), "no `input_tokens`"),
        (anthropic_usage({"input_tokens": 9, "output_tokens": 1}, None), "no `message_delta`"),
        (
            anthropic_usage({"input_tokens": 9, "output_tokens": 1}, {"output_tokens": 0}),
            "`output_tokens` 0, not > 0",
        ),
        (
            # counts sent per delta: the last one is only its own increment
            anthropic_usage(
                {"input_tokens": 9, "output_tokens": 4},
                {"output_tokens": 6},
                {"output_tokens": 2},
            ),
            "2 output_tokens, fewer than message_start's 4",
        ),
        (
            anthropic_usage(
                {"input_tokens": 9, "output_tokens": 1}, {"input_tokens": 0, "output_tokens": 3}
            ),
            "0 input_tokens, fewer than message_start's 9",
        ),
        (
            anthropic_usage({"input_tokens": 9, "output_tokens": 1}, {"output_tokens": "3"}),
            "`output_tokens` '3'",
        ),
    ],
)
def test_usage_fails_where_the_counts_are_missing_or_not_cumulative(payloads, said):
    verdict = usage_verdict(payloads)
    assert verdict.verdict == "fail" and said in verdict.why, verdict.why


def test_usage_passes_on_cumulative_counts_and_says_the_messages_usage():
    verdict = usage_verdict(
        anthropic_usage(
            {"input_tokens": 9, "output_tokens": 1},
            {"output_tokens": 4},
            {"input_tokens": 9, "output_tokens": 7, "cache_read_input_tokens": None},
        )
    )
    assert verdict.verdict == "pass", verdict.why
    assert "the last of 2 message_delta(s) 7 output tokens (from 1)" in verdict.why
    assert verdict.why.endswith("9 in, 7 out")


ANTHROPIC_CAPTURES = sorted(
    p.name for p in (Path(__file__).parent / "captures" / "dialects").glob("anthropic-*.sse")
)


@pytest.mark.parametrize("name", ANTHROPIC_CAPTURES)
def test_usage_passes_on_anthropics_own_streams(name):
    """Anthropic's API's real streams (tests/captures/SOURCES.md) are what the case expects,
    and the numbers it says are those anthropic-python's ``get_final_message()`` ends with."""
    from app.judges import anthropic_python

    data = (Path(__file__).parent / "captures" / "dialects" / name).read_bytes()
    run = run_of(body=data, api="anthropic")
    verdict = BY_NAME["usage"].check(result(run, api="anthropic"))
    assert verdict.verdict == "pass", verdict.why
    sdk = anthropic_python.read("anthropic-messages", data)["usage"]
    said = f"{sdk['prompt_tokens']} in, {sdk['completion_tokens']} out"
    assert verdict.why.endswith(said), (verdict.why, sdk)


def test_the_fakes_usage_is_what_anthropic_python_assembles_and_its_variants_fail():
    """The fake's clean answer passes with the numbers anthropic-python ends with; its
    ``usage=absent`` and ``usage=zero`` variants (tests/fake_conform.py) fail."""
    from app.judges import anthropic_python

    from .conform_kit import sse
    from .fake_conform import AnthropicConform

    body = api_named("anthropic").body(BY_NAME["usage"].request(ANTHROPIC))
    payloads = AnthropicConform(body).payloads()
    verdict = usage_verdict(payloads)
    assert verdict.verdict == "pass", verdict.why
    sdk = anthropic_python.read("anthropic-messages", b"".join(sse(payloads, named=True)))
    usage = sdk["usage"]
    assert verdict.why.endswith(f"{usage['prompt_tokens']} in, {usage['completion_tokens']} out")
    for variant, said in (("absent", "has no `usage`"), ("zero", "`output_tokens` 0")):
        broken = usage_verdict(AnthropicConform(body, f"usage={variant}").payloads())
        assert broken.verdict == "fail" and said in broken.why, (variant, broken.why)


COMPLETIONS_CASES = [case.name for case in CASES if "completions" in case.apis]


def test_legacy_completions_have_the_text_cases_and_no_tool_or_reasoning_one():
    left_out = ("usage", "tool-single", "tool-parallel", "tool-required", "tool-none")
    left_out += ("tool-result-turn",)
    left_out += ("json-schema", "reasoning")
    assert [n for n in NAMES if n not in left_out] == COMPLETIONS_CASES


def clean_completions_result(name: str) -> Result:
    case = BY_NAME[name]
    runs = [clean_completions(case) for _ in range(case.copies)]
    if case.hangup:
        runs[0].hung_up = True
    if case.then is not None:
        body = api_named("completions").body(case.then(COMPLETIONS, runs[0]))
        runs.append(clean_completions(case, body))
    return result(*runs, api="completions")


@pytest.mark.parametrize("name", [n for n in COMPLETIONS_CASES if n != "bad-request"])
def test_a_clean_completions_answer_passes(name):
    verdict = BY_NAME[name].check(clean_completions_result(name))
    assert verdict.verdict == "pass", verdict.why


def legacy_logprobs(token: str, alternatives: dict[str, float]) -> dict:
    return {
        "tokens": [token],
        "token_logprobs": [-0.1],
        "top_logprobs": [alternatives],
        "text_offset": [0],
    }


def test_completions_logprobs_asks_a_count_and_takes_the_sampled_tokens_extra_one():
    case = BY_NAME["logprobs"]
    body = api_named("completions").body(case.request(COMPLETIONS))
    assert body["logprobs"] == 2 and "top_logprobs" not in body

    def verdict(alternatives: dict[str, float]):
        payloads = [
            completion("Hi", logprobs=legacy_logprobs("Hi", alternatives)),
            completion("", finish="stop"),
            "[DONE]",
        ]
        run = run_of(payloads, request=body, api="completions")
        return case.check(result(run, api="completions"))

    assert verdict({"Hi": -0.1, "Hello": -2.0}).verdict == "pass"
    assert verdict({"Hi": -0.1, "Hello": -2.0, "Hey": -3.0}).verdict == "pass"  # "up to +1"
    short = verdict({"Hi": -0.1})
    assert short.verdict == "fail" and "1 top_logprobs; asked 2" in short.why


def test_completions_n2_wants_each_choice_finished():
    payloads = [
        completion("Hi", 0),
        completion("Hi", 1),
        completion("", 0, finish="stop"),
        "[DONE]",
    ]
    verdict = BY_NAME["n2"].check(result(run_of(payloads, api="completions"), api="completions"))
    assert verdict.verdict == "fail" and "choice 1 finished 0 times" in verdict.why
