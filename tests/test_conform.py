"""``streamscope conform`` against the fake upstream on loopback (docs/conform.md): the whole
chat battery passes on the clean ``conform`` model, --only/--skip choose, --json has the
documented shape, --junit is one test case per case, --out holds captures ``inspect`` reads,
a refused optional parameter is ``unsupported``, and a port nothing listens on exits 2."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from xml.etree import ElementTree as ET

import httpx
import pytest

from app.cli import main

from .live_server import ROOT, LiveServer
from .server_process import interruptible
from .test_conform_cases import (
    ANTHROPIC_CASES,
    CHAT_CASES,
    COMPLETIONS_CASES,
    RESPONSES_CASES,
    documented_keys,
    keys_of,
)

pytestmark = pytest.mark.integration


def conform(fake, capsys, *args: str, model: str = "conform") -> tuple[int, str, str]:
    code = main(["conform", "--base-url", fake.url, "--model", model, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_whole_chat_battery_passes_on_the_clean_fake(fake, capsys):
    code, out, err = conform(fake, capsys, "--concurrency", "4")
    assert code == 0, out + err
    rows = [
        line.split() for line in out.splitlines() if line.split()[:1] in ([n] for n in CHAT_CASES)
    ]
    assert [row[0] for row in rows] == CHAT_CASES
    assert all(row[1] == "pass" for row in rows), out
    assert f"{len(CHAT_CASES)} cases: {len(CHAT_CASES)} pass, 0 warn, 0 fail, 0 unsupported" in out


def test_only_and_skip_choose_the_cases(fake, capsys):
    code, out, _ = conform(fake, capsys, "--only", "plain,n2", "--json")
    assert code == 0
    assert [c["case"] for c in json.loads(out)["cases"]] == ["plain", "n2"]
    skipped = {"long", "disconnect", "concurrent", "tool-result-turn"}
    code, out, _ = conform(fake, capsys, "--skip", ",".join(skipped), "--json")
    assert code == 0
    assert [c["case"] for c in json.loads(out)["cases"]] == [
        n for n in CHAT_CASES if n not in skipped
    ]
    code, _, err = conform(fake, capsys, "--only", "plain,nonsense")
    assert code == 2 and "unknown case 'nonsense'" in err and "Traceback" not in err


def test_json_has_the_documented_shape(fake, capsys):
    code, out, _ = conform(fake, capsys, "--only", "plain,bad-request,concurrent", "--json")
    assert code == 0
    doc = json.loads(out)
    made, documented = keys_of(doc), documented_keys()
    assert "metrics" in made
    assert {part: made[part] for part in made} == {part: documented[part] for part in made}
    assert doc["server"]["base_url"] == fake.url and doc["server"]["model"] == "conform"
    assert doc["summary"]["pass"] == 3 and doc["summary"]["passed"] is True
    plain = doc["cases"][0]
    assert plain["verdict"] == "pass" and plain["metrics"]["ttft_ms"] > 0
    assert plain["capture"] is None  # no --out


def test_junit_is_one_test_case_per_case(fake, capsys, tmp_path):
    report = tmp_path / "conform.xml"
    code, _, _ = conform(fake, capsys, "--junit", str(report), "--skip", "long")
    assert code == 0
    suites = ET.parse(report).getroot()
    cases = suites.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [n for n in CHAT_CASES if n != "long"]
    suite = suites.find("testsuite")
    assert suite is not None and suite.get("tests") == str(len(CHAT_CASES) - 1)
    assert suite.get("failures") == "0"


def test_out_holds_a_timed_capture_per_case_that_inspect_reads(fake, capsys, tmp_path):
    out_dir = tmp_path / "captures"
    code, out, _ = conform(fake, capsys, "--out", str(out_dir), "--json")
    assert code == 0
    doc = json.loads(out)
    for case in doc["cases"]:
        assert case["capture"] == str(out_dir / f"{case['case']}.jsonl")
    assert {p.name for p in out_dir.glob("*.jsonl") if p.name.count(".") == 1} == {
        f"{n}.jsonl" for n in CHAT_CASES
    }
    concurrent = next(c for c in doc["cases"] if c["case"] == "concurrent")
    assert len(concurrent["captures"]) == 4
    for name in ("plain", "tool-parallel", "bad-request", "disconnect.2"):
        assert main(["inspect", str(out_dir / f"{name}.jsonl")]) == 0, name
        capsys.readouterr()
    first = json.loads((out_dir / "plain.jsonl").read_bytes().splitlines()[0])
    assert first["format"] == "streamscope.timed" and first["request"]["model"] == "conform"


def test_a_refused_optional_parameter_is_unsupported(fake, capsys):
    model = "conform:refuse=n,logprobs,reasoning_effort"
    code, out, _ = conform(
        fake, capsys, "--only", "plain,n2,logprobs,reasoning", "--json", model=model
    )
    assert code == 0
    verdicts = {c["case"]: (c["verdict"], c["why"]) for c in json.loads(out)["cases"]}
    assert verdicts["plain"][0] == "pass"
    for name in ("n2", "logprobs", "reasoning"):
        assert verdicts[name][0] == "unsupported"
        assert "HTTP 400: Unsupported parameter" in verdicts[name][1]


def test_a_server_that_does_not_stream_fails_the_cases(fake, capsys, tmp_path):
    report = tmp_path / "conform.xml"
    code, out, _ = conform(
        fake, capsys, "--only", "plain,no-usage", "--junit", str(report), model="json"
    )
    assert code == 1
    assert "FAIL" in out
    failures = ET.parse(report).getroot().findall("./testsuite/testcase/failure")
    assert len(failures) == 2


def test_a_port_nothing_listens_on_exits_2(capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = main(["conform", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "cannot reach" in err and "refused" in err and "Traceback" not in err
    doc = json.loads(out)
    assert doc["server"]["reached"] is False and len(doc["cases"]) == 1


def test_the_anthropic_battery_passes_on_the_clean_fake(fake, capsys, tmp_path):
    base = f"http://127.0.0.1:{fake.port}"
    out_dir = tmp_path / "anthropic"
    args = ["--api", "anthropic", "--base-url", base, "--model", "conform", "--json"]
    code = main(["conform", *args, "--out", str(out_dir)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    doc = json.loads(out)
    assert doc["server"]["api"] == "anthropic"
    verdicts = {c["case"]: c["verdict"] for c in doc["cases"]}
    assert verdicts == dict.fromkeys(ANTHROPIC_CASES, "pass")
    sent = [r for r in fake.requests if r["path"] == "/v1/messages"]
    assert sent and all(r["headers"].get("anthropic-version") for r in sent)
    assert main(["inspect", str(out_dir / "tool-parallel.jsonl")]) == 0
    assert "anthropic-messages" in capsys.readouterr().out


def test_anthropics_usage_case_fails_on_the_fakes_broken_usage(fake, capsys):
    """``usage`` (Anthropic only) over the wire: it passes on the clean model and fails, with
    exit 1, on the variants whose message_start has no usage or whose message_delta says 0
    output tokens (tests/fake_conform.py)."""
    base = f"http://127.0.0.1:{fake.port}"
    args = ["conform", "--api", "anthropic", "--base-url", base, "--only", "usage", "--json"]
    assert main([*args, "--model", "conform"]) == 0
    (case,) = json.loads(capsys.readouterr().out)["cases"]
    assert case["verdict"] == "pass" and "input tokens" in case["why"], case
    for variant, said in (("absent", "has no `usage`"), ("zero", "`output_tokens` 0")):
        assert main([*args, "--model", f"conform:usage={variant}"]) == 1
        (case,) = json.loads(capsys.readouterr().out)["cases"]
        assert case["verdict"] == "fail" and said in case["why"], (variant, case)
    assert main(["conform", "--base-url", base, "--model", "conform", "--only", "usage"]) == 2
    assert "leave no case to run" in capsys.readouterr().err  # not a case of the chat battery


@pytest.mark.slow
def test_judges_read_each_answer(fake, capsys):
    code, out, _ = conform(fake, capsys, "--only", "plain", "--judges", "--json")
    assert code == 0
    judges = json.loads(out)["cases"][0]["judges"]
    assert judges and {j["verdict"] for j in judges} <= {"ok", "not installed"}


def test_a_case_past_its_deadline_fails_saying_so(fake, capsys):
    started = time.monotonic()
    code, out, _ = conform(
        fake, capsys, "--only", "plain", "--case-timeout", "0.5", "--json", model="slow:50"
    )
    assert time.monotonic() - started < 4
    assert code == 1
    case = json.loads(out)["cases"][0]
    assert case["verdict"] == "fail" and "the stream ended with error" in case["why"]


def test_an_html_error_page_fails_with_its_title_not_a_traceback(fake, capsys):
    code, out, err = conform(
        fake, capsys, "--only", "plain,bad-request", "--json", model="html:404"
    )
    assert code == 1 and "Traceback" not in err
    verdicts = {c["case"]: c for c in json.loads(out)["cases"]}
    assert verdicts["plain"]["verdict"] == "fail" and "HTTP 404" in verdicts["plain"]["why"]
    assert verdicts["bad-request"]["verdict"] == "fail"
    assert "not a JSON error object" in verdicts["bad-request"]["why"]


def test_the_responses_battery_passes_on_the_clean_fake(fake, capsys):
    code, out, err = conform(fake, capsys, "--api", "responses", "--json")
    assert code == 0, out + err
    doc = json.loads(out)
    assert {c["case"]: c["verdict"] for c in doc["cases"]} == dict.fromkeys(RESPONSES_CASES, "pass")
    assert any(r["path"] == "/v1/responses" for r in fake.requests)


def test_the_completions_battery_passes_on_the_clean_fake(fake, capsys):
    code, out, err = conform(fake, capsys, "--api", "completions", "--json")
    assert code == 0, out + err
    doc = json.loads(out)
    assert {c["case"]: c["verdict"] for c in doc["cases"]} == dict.fromkeys(
        COMPLETIONS_CASES, "pass"
    )
    sent = [r for r in fake.requests if r["path"] == "/v1/completions"]
    assert sent and all("prompt" in r["body"] and "messages" not in r["body"] for r in sent)


def test_server_gets_each_capture_and_the_card_its_share_link(fake, capsys, tmp_path):
    with LiveServer(tmp_path / "streamscope") as server:
        code, out, err = conform(
            fake, capsys, "--only", "plain,concurrent", "--server", server.url, "--json"
        )
        assert code == 0, err
        cases = json.loads(out)["cases"]
        plain, concurrent = cases
        assert plain["capture"].startswith(server.url + "/")
        assert len(concurrent["shared"]) == 4 and all(
            s["delete_token"] for s in concurrent["shared"]
        )
        capture_id = plain["capture"].rstrip("/").rsplit("/", 1)[1]
        with httpx.Client() as client:
            stored = client.get(f"{server.url}/api/captures/{capture_id}")
        assert stored.status_code == 200, stored.text
        assert stored.json()["format"] == "timed"
    # the server gone: the cases still pass, the failed uploads are said
    code, out, err = conform(fake, capsys, "--only", "plain", "--server", server.url, "--json")
    assert code == 0
    shared = json.loads(out)["cases"][0]["shared"]
    assert shared[0]["url"] is None and "cannot upload" in shared[0]["error"]
    assert "upload(s) failed" in err


def test_without_model_the_first_listed_one_is_asked(fake, capsys):
    code = main(["conform", "--base-url", fake.url, "--only", "plain", "--json"])
    out, _ = capsys.readouterr()
    assert json.loads(out)["server"]["model"] == "fake-large"  # the first by name; it has no answer
    assert code == 1
    code = main(["conform", "--base-url", fake.url + "/missing", "--only", "plain"])
    err = capsys.readouterr().err
    assert code == 2 and "models list could not be read: HTTP 404" in err


def test_ctrl_c_ends_the_run_with_130_and_a_line(fake):
    command = [sys.executable, "-m", "app.cli", "conform", "--base-url", fake.url]
    command += ["--model", "slow:30", "--only", "plain,long", "--concurrency", "1"]
    before = len(fake.requests)
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=interruptible,
    )
    deadline = time.monotonic() + 30
    while len(fake.requests) == before:  # the first case (3 s) is running once its request came
        assert time.monotonic() < deadline and process.poll() is None, process.poll()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert b"interrupted" in err and b"Traceback" not in err
