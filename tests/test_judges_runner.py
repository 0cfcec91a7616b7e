"""Running a client judge (docs/judges.md, "Caps"; app/judges/runner.py): a judge that is not
installed says so and runs nothing; a child that hangs is killed at the time cap, one that
takes more memory than its cap or writes more than its output cap ends with a crash verdict,
never a hang or an exception; what a judge writes becomes ``ok``, ``differs`` or ``crash``.
The children here are fake judges: small Python programs in place of a client."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from app.judges.capture import judge_stream
from app.judges.registry import JUDGES, Judge, judges_for
from app.judges.runner import Caps, Ran, read_answer, run, run_capped, version_of

OURS = {
    "text": "hi",
    "reasoning": "",
    "tool_calls": [],
    "finish": "stop",
    "usage": None,
}


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_judge_whose_package_is_missing_says_not_installed():
    judge = Judge(
        "nobody-python",
        "x.stream",
        "chat-completions",
        "python",
        "openai_python",
        "streamscope-no-such-client",
    )
    assert version_of(judge, None) is None
    found = run(judge, b"data: [DONE]\n\n", OURS, Caps())
    assert found["verdict"] == "not installed"
    assert found["client"] == "nobody-python" and found["version"] is None
    assert "streamscope judges install" in found["error"]


def test_a_node_judge_without_its_folder_says_not_installed(tmp_path):
    node = next(j for j in JUDGES if j.runtime == "node")
    assert run(node, b"", OURS, Caps(), tmp_path / "nothing-here")["verdict"] == "not installed"
    assert run(node, b"", OURS, Caps(), None)["verdict"] == "not installed"


def test_a_judge_that_hangs_is_killed_at_the_time_cap():
    caps = Caps(timeout_s=1.0)
    started = time.monotonic()
    ran = run_capped(python("import time; time.sleep(60)"), b"", caps)
    took = time.monotonic() - started
    assert ran.timed_out and ran.returncode is None
    assert took < 10
    found = read_answer("fake", "0", "api", OURS, ran, caps)
    assert found["verdict"] == "timeout" and found["error"] == "killed after 1 s"


def test_the_whole_process_group_is_killed(tmp_path):
    """A judge that starts a process of its own (Node's workers) leaves nothing behind."""
    marker = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, time; "
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(marker)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    ran = run_capped(python(code), b"", Caps(timeout_s=2.0))
    assert ran.timed_out
    pid = int(marker.read_text())
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}/stat").exists() else ""
        if ") Z " in stat:  # a zombie: killed, waiting for its parent's reaper
            break
        time.sleep(0.1)
    stat = Path(f"/proc/{pid}/stat")
    assert not stat.exists() or ") Z " in stat.read_text()


def test_a_judge_over_its_memory_cap_crashes_and_says_so():
    caps = Caps(memory_mb=300)
    ran = run_capped(python("b = bytearray(600 * 1024 * 1024); print('allocated')"), b"", caps)
    assert not ran.timed_out and ran.returncode != 0
    assert b"allocated" not in ran.stdout and b"MemoryError" in ran.stderr
    found = read_answer("fake", "0", "api", OURS, ran, caps)
    assert found["verdict"] == "crash" and "MemoryError" in found["error"]


def test_what_a_judge_writes_is_capped():
    caps = Caps(output_bytes=64 * 1024)
    ran = run_capped(python("import sys; sys.stdout.write('x' * 10_000_000)"), b"", caps)
    assert len(ran.stdout) <= caps.output_bytes
    assert read_answer("fake", "0", "api", OURS, ran, caps)["verdict"] == "crash"


def test_the_bytes_reach_the_judge_on_its_standard_input():
    code = "import sys, json; d = sys.stdin.buffer.read(); print(json.dumps({'theirs': {'text': d.decode()}}))"
    ran = run_capped(python(code), b"hi", Caps())
    assert read_answer("fake", "0", "api", OURS, ran, Caps())["verdict"] == "ok"
    ran = run_capped(python(code), b"ho", Caps())
    found = read_answer("fake", "0", "api", OURS, ran, Caps())
    assert (found["verdict"], found["field"], found["ours"], found["theirs"]) == (
        "differs",
        "text",
        "hi",
        "ho",
    )


def test_a_judge_that_says_nothing_useful_is_a_crash_with_its_last_words():
    ran = run_capped(python("import sys; print('noise'); sys.exit('it broke')"), b"", Caps())
    found = read_answer("fake", "0", "api", OURS, ran, Caps())
    assert found["verdict"] == "crash"
    assert found["error"] == "the judge's process ended with code 1: it broke"
    said = Ran(False, 0, b'{"crash": "TypeError: list indices\\nmore"}\n', b"")
    assert read_answer("fake", "0", "api", OURS, said, Caps())["error"] == "TypeError: list indices"


def test_judges_run_only_on_the_dialects_they_speak():
    assert {j.client for j in judges_for("chat-completions")} == {
        "openai-python",
        "langchain-openai",
        "@ai-sdk/openai",
        "@ai-sdk/openai-compatible",
    }
    assert {j.client for j in judges_for("anthropic-messages")} == {
        "anthropic-python",
        "@ai-sdk/anthropic",
    }
    assert {j.api for j in judges_for("openai-responses")} == {
        "responses.stream",
        "streamText openai.responses",
    }
    assert [j.client for j in judges_for("gemini")] == ["@ai-sdk/google"]
    assert judges_for("ollama") == [] and judges_for(None) == []


def test_a_stream_no_judge_reads_gets_no_verdicts(tmp_path):
    from app.captures import Limits
    from app.captures.ingest import ingest

    from .helpers import corpus

    data = corpus("dialects/ollama-chat-llama3-text.ndjson")
    stream = ingest(data, None, Limits(), store=False).capture.streams[0]
    assert judge_stream(stream, Caps(), tmp_path) == []


def test_inspect_judges_without_json_says_what_it_needs(capsys):
    from app.cli import main

    from .helpers import capture_path

    assert main(["inspect", "--judges", str(capture_path("openai-gpt4o-tool-single.sse"))]) == 2
    assert "--judges goes with --json" in capsys.readouterr().err


def test_the_caps_are_the_childs_own_limits():
    import json
    import resource

    code = (
        "import json, resource; print(json.dumps([resource.getrlimit(r) for r in "
        "(resource.RLIMIT_AS, resource.RLIMIT_FSIZE, resource.RLIMIT_CPU)]))"
    )
    caps = Caps(timeout_s=5.0, memory_mb=700, output_bytes=4096)
    ran = run_capped(python(code), b"", caps)
    assert json.loads(ran.stdout) == [[700 * 1024 * 1024] * 2, [4096] * 2, [7, 7]]
    assert resource.getrlimit(resource.RLIMIT_AS)[0] != 700 * 1024 * 1024  # not this process's


def test_a_judge_that_cannot_start_says_so(tmp_path):
    """The Node judges' folder is there but its script cannot be put beside them (a file where
    the script goes is a folder): a verdict, not an exception."""
    node = next(j for j in JUDGES if j.client == "@ai-sdk/openai-compatible")
    package = tmp_path / "node_modules" / node.package
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"version": "9.9.9"}')
    (tmp_path / "judge.mjs").mkdir()
    found = run(node, b"", OURS, Caps(), tmp_path)
    assert (found["verdict"], found["version"]) == ("not installed", "9.9.9")
    assert found["error"].startswith("cannot start: ")


def test_the_node_judges_script_beside_its_modules_is_this_versions(tmp_path):
    from app.judges.runner import JUDGE_SCRIPT, command_for

    node = next(j for j in JUDGES if j.runtime == "node")
    (tmp_path / "judge.mjs").write_text("// an older judge")
    command, cwd = command_for(node, tmp_path)
    assert (tmp_path / "judge.mjs").read_bytes() == JUDGE_SCRIPT.read_bytes()
    assert cwd == tmp_path and command[-2:] == [str(tmp_path / "judge.mjs"), node.target]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["judge.mjs"]  # no file left beside


def test_a_node_judge_without_node_says_not_installed(tmp_path, monkeypatch):
    node = next(j for j in JUDGES if j.runtime == "node")
    package = tmp_path / "node_modules" / node.package
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"version": "1.2.3"}')
    assert version_of(node, tmp_path) == "1.2.3"  # node is on the PATH (scripts/test)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert version_of(node, tmp_path) is None
    assert run(node, b"", OURS, Caps(), tmp_path)["verdict"] == "not installed"
