"""``streamscope check``: exit status by findings and budgets, and its text, JSON and JUnit
outputs (docs/rules.md, "streamscope check")."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import pytest

from app.check.budget import BudgetError, parse
from app.cli import main
from tests.rules.cases import call, text, tools
from tests.rules.kit import sse, timed

from .helpers import capture_path

NO_INDEX = capture_path("mistral-small-tool-call-no-index.sse")
CLEAN = capture_path("openai-gpt4o-tool-single.sse")


def test_exit_zero_when_nothing_reaches_the_threshold(capsys):
    assert main(["check", str(CLEAN)]) == 0
    assert "passed" in capsys.readouterr().out


def test_exit_one_on_an_error_finding_and_it_is_named(capsys):
    assert main(["check", str(CLEAN), str(NO_INDEX)]) == 1
    out = capsys.readouterr().out
    assert "x error tool-call-index-missing (line 3)" in out


def test_fail_on_lowers_the_threshold(tmp_path, capsys):
    path = tmp_path / "keepalive.sse"
    path.write_bytes(sse(*text("a"), comments=("keep-alive",)))
    assert main(["check", str(path)]) == 0
    assert main(["check", "--fail-on", "warning", str(path)]) == 0  # keepalive is info
    assert main(["check", "--fail-on", "info", str(path)]) == 1


def test_exit_two_when_a_file_cannot_be_read(tmp_path, capsys):
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"hello, not a stream\n")
    assert main(["check", str(CLEAN), str(junk)]) == 2
    assert main(["check", str(tmp_path / "absent.sse")]) == 2
    assert "cannot be read" in capsys.readouterr().out


def test_budgets_fail_a_slow_stream_and_hold_on_a_fast_one(tmp_path, capsys):
    slow = tmp_path / "slow.jsonl"
    slow.write_bytes(
        timed(sse(*text("a", "b", "c")), times=[2500.0, 2510.0, 2520.0, 2530.0, 2531.0])
    )
    fast = tmp_path / "fast.jsonl"
    fast.write_bytes(timed(sse(*text("a", "b", "c")), times=[100.0, 110.0, 120.0, 130.0, 131.0]))
    assert main(["check", "--budget", "ttft=2s,itl-p95=200ms", str(fast)]) == 0
    assert main(["check", "--budget", "ttft=2s,itl-p95=200ms", str(slow)]) == 1
    out = capsys.readouterr().out
    assert "ttft <= 2 s: BROKEN (2.5 s)" in out


def test_a_budget_on_a_capture_without_times_is_not_judged(capsys):
    assert main(["check", "--budget", "ttft=1ms", str(CLEAN)]) == 0
    assert "not judged" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text, why",
    [("ttft", "NAME=VALUE"), ("speed=2s", "not one of"), ("ttft=fast", "not a time")],
)
def test_a_bad_budget_says_which_part_and_why(text, why, capsys):
    with pytest.raises(BudgetError, match=why):
        parse(text)
    assert main(["check", "--budget", text, str(CLEAN)]) == 2
    assert why in capsys.readouterr().err


def test_budget_units():
    assert [(b.name, b.limit_ms) for b in parse("ttft=2s, itl-p95=200ms,e2el=1.5s,stall=300")] == [
        ("ttft", 2000.0),
        ("itl-p95", 200.0),
        ("e2el", 1500.0),
        ("stall", 300.0),
    ]


def test_junit_has_a_case_per_stream_and_rule_and_a_failure_per_failing_finding(capsys):
    assert main(["check", "--format", "junit", str(NO_INDEX), str(CLEAN)]) == 1
    root = ET.fromstring(capsys.readouterr().out.encode())
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [str(NO_INDEX), str(CLEAN)]
    bad = suites[0]
    names = [c.get("name") for c in bad.findall("testcase")]
    assert "tool-call-index-missing" in names and "role-repeated" in names
    assert len(names) == len(set(names))  # one case per rule for its one stream
    failing = [c for c in bad.findall("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failing] == ["tool-call-index-missing"]
    assert bad.get("failures") == "1" and suites[1].get("failures") == "0"
    # request-aware rules are skipped, and say why, where the capture holds no request
    skipped = {
        c.get("name"): c.find("skipped")
        for c in bad.findall("testcase")
        if c.find("skipped") is not None
    }
    assert "usage-missing" in skipped and "request" in skipped["usage-missing"].get("message")


def test_json_gives_inspect_and_a_verdict_per_file(capsys):
    assert main(["check", "--json", str(NO_INDEX)]) == 1
    document = json.loads(capsys.readouterr().out)
    (file,) = document["files"]
    assert file["passed"] is False
    assert file["check"][0]["failing"] == ["tool-call-index-missing"]
    rules = [f["rule"] for f in file["inspect"]["streams"][0]["findings"]]
    assert rules == ["tool-call-index-missing", "usage-with-choices"]


def test_inspect_json_carries_findings_with_where_and_doc(tmp_path, capsys):
    path = tmp_path / "calls.sse"
    path.write_bytes(sse(*tools(call(index=None), call(index=None, id=None, name=None, args="{}"))))
    assert main(["inspect", "--json", str(path)]) == 0
    (stream,) = json.loads(capsys.readouterr().out)["streams"]
    (finding,) = [f for f in stream["findings"] if f["rule"] == "tool-call-index-missing"]
    assert finding["severity"] == "error" and finding["line"] == 1 and finding["raw"] == 0
    assert finding["count"] == 2 and finding["doc"] == "docs/rules.md#tool-call-index-missing"
    assert stream["finding_counts"]["error"] >= 1


@pytest.mark.integration
def test_check_judges_fail_on_a_client_that_crashes_and_say_not_installed_without_failing(
    tmp_path_factory, capsys
):
    """The real clients: openai-python crashes on a tool call without index (docs/judges.md);
    where the Node judges are not installed they say so and fail nothing."""
    from tests import judges_setup

    data = judges_setup.data_dir_with_judges(tmp_path_factory, "check-judges")
    assert main(["check", "--judges", "--data-dir", str(data), "--json", str(NO_INDEX)]) == 1
    (file,) = json.loads(capsys.readouterr().out)["files"]
    assert "openai-python" in file["check"][0]["failing_judges"]
    empty = tmp_path_factory.mktemp("no-node-judges")
    assert (
        main(["check", "--judges", "--data-dir", str(empty), "--format", "junit", str(CLEAN)]) == 0
    )
    root = ET.fromstring(capsys.readouterr().out.encode())
    judged = {c.get("name"): c for c in root.iter("testcase") if c.get("name").startswith("judge ")}
    assert any("openai-python" in name for name in judged)
    skipped = [n for n, c in judged.items() if c.find("skipped") is not None]
    assert skipped and all("@ai-sdk" in n for n in skipped)
