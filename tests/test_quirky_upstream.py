"""The quirk-injecting upstream (tests/quirky_upstream.py) against the rule catalogue (issue 30):
each profile, recorded with ``streamscope record`` over loopback (a plain and a tool-call
request), triggers exactly the warning and error rules its record names, and the clean profile
none. The confusion matrix (profiles x rules) is printed, and written to
test-output/quirks-matrix.txt.

``lmstudio-empty-name`` expects ``tool-call-name-empty`` on its tool-call requests (``"name":
""`` on the fragments that continue a call) and nothing on its plain ones; no other profile
sends an empty name, so no other one fires it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app.domain.rules import BY_ID

from .quirk_runs import matrix, payloads_of, record
from .quirky_upstream import KINDS, PROFILES, QuirkyUpstream, stream_of

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def quirky():
    server = QuirkyUpstream().start()
    yield server
    server.stop()


def test_every_profile_cites_its_source_and_names_rules_of_the_catalogue():
    for profile in PROFILES.values():
        assert profile.source.startswith("https://"), profile.name
        assert profile.what, profile.name
        for kind in KINDS:
            for rule in profile.expected(kind):
                assert rule in BY_ID, (profile.name, rule)
                assert BY_ID[rule].severity in ("warning", "error"), (profile.name, rule)
        if profile.name != "clean":
            # a profile's cited thread is among its rule's sources, where a rule names it
            for rule in set().union(*(profile.expected(k) for k in KINDS)):
                sources = {s.replace("/pull/", "/issues/") for s in BY_ID[rule].sources}
                assert profile.source.replace("/pull/", "/issues/") in sources, (
                    profile.name,
                    rule,
                )


def test_each_quirk_is_only_its_own():
    """Each profile's stream differs from the clean one's only where its quirk says (no
    server needed: the bodies themselves)."""
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "weather in Paris?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather"}}],
    }
    clean = stream_of("clean", body)
    assert stream_of("gateway-no-done", body) == clean.removesuffix(b"data: [DONE]\n\n")
    azure = stream_of("azure-content-filter", body)
    first, _, rest = azure.partition(b"\n\n")
    assert rest == clean and b'"prompt_filter_results"' in first and b'"id": ""' in first
    for name in PROFILES:
        assert stream_of(name, body) != clean or name == "clean"


@pytest.mark.integration
def test_models_and_errors(quirky):
    listed = json.load(urllib.request.urlopen(f"{quirky.url}/models", timeout=5))
    assert {f"quirk/{p}" for p in PROFILES} <= {m["id"] for m in listed["data"]}
    under = json.load(urllib.request.urlopen(f"{quirky.profile_url('clean')}/models", timeout=5))
    assert under == listed
    bad = urllib.request.Request(
        f"{quirky.url}/chat/completions",
        data=json.dumps({"model": "quirk/clean", "stream": True}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(bad, timeout=5)
    assert raised.value.code == 400
    assert json.load(raised.value)["error"]["message"]
    # the fake upstream's own behaviours still answer on the same server
    replay = urllib.request.Request(
        f"{quirky.url}/chat/completions",
        data=json.dumps({"model": "slow:2", "stream": True, "messages": []}).encode(),
        headers={"Content-Type": "application/json"},
    )
    assert b"word1" in urllib.request.urlopen(replay, timeout=5).read()


@pytest.mark.integration
def test_the_path_prefix_picks_the_profile_whatever_the_model(quirky, tmp_path):
    run = record(quirky.profile_url("gateway-no-done"), "any-name", "plain", tmp_path)
    assert run.rules == {"done-missing"}
    assert "[DONE]" not in run.payloads


@pytest.mark.integration
def test_each_profile_triggers_exactly_its_rules(quirky, tmp_path, capsys):
    fired: dict[str, frozenset[str]] = {}
    expected: dict[str, frozenset[str]] = {}
    problems = []
    for name, profile in PROFILES.items():
        for kind in KINDS:
            run = record(quirky.url, f"quirk/{name}", kind, tmp_path / name)
            row = f"{name} {kind}"
            fired[row], expected[row] = run.rules, profile.expected(kind)
            if run.rules != profile.expected(kind):
                problems.append(
                    f"{row}: fired {sorted(run.rules)}, expected {sorted(profile.expected(kind))}"
                )
            # what was asked came back: text, or a call with whole arguments
            payloads = [p for p in run.payloads if isinstance(p, dict)]
            assert payloads, (row, run.stderr)
            if kind != "plain":
                ids = {
                    fragment.get("id")
                    for p in payloads
                    for c in p.get("choices") or []
                    for fragment in c.get("delta", {}).get("tool_calls") or []
                } - {None}
                assert len(ids) == (2 if kind == "parallel" else 1), (row, ids)
            if name != "gateway-no-done":
                assert run.status == 0, (row, run.stderr)
                assert run.payloads[-1] == "[DONE]", row
    table = matrix(fired, expected)
    out = ROOT / "test-output"
    out.mkdir(exist_ok=True)
    (out / "quirks-matrix.txt").write_text(table + "\n")
    with capsys.disabled():
        print("\n\nquirk profiles x rules (streamscope record, then rules.find)\n" + table)
    assert not problems, "\n".join(problems)


@pytest.mark.integration
def test_usage_and_choices_follow_the_request(quirky, tmp_path):
    """What a battery asks besides text and tools: no usage when not asked (--body overrides
    stream_options), n choices, max_tokens cut short with finish ``length``."""
    run = record(
        quirky.url,
        "quirk/clean",
        "plain",
        tmp_path,
        "--body",
        json.dumps({"stream_options": {"include_usage": False}}),
        "--n",
        "2",
        "--max-tokens",
        "2",
    )
    assert run.status == 0, run.stderr
    assert run.rules == frozenset()
    chunks = [p for p in payloads_of(run.data) if isinstance(p, dict)]
    assert not any("usage" in c for c in chunks)
    finishes = [(c["index"], c["finish_reason"]) for p in chunks for c in p["choices"]]
    assert [f for f in finishes if f[1]] == [(0, "length"), (1, "length")]


@pytest.mark.integration
@pytest.mark.slow
def test_conform_on_each_profile_reports_exactly_its_quirks(quirky, capsys):
    """``streamscope conform`` (its whole chat battery) on each profile: the warning and error
    rules it finds, over all its cases, are the profile's (plain and tool-call ones together),
    and on the clean profile every case passes with no finding. Skipped where the command is
    not there yet (app/conform)."""
    pytest.importorskip("app.conform", reason="streamscope conform is not in this tree")
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    def conform(name: str) -> tuple[int, dict]:
        argv = [sys.executable, "-m", "app.cli", "conform", "--base-url", quirky.url]
        argv += ["--model", f"quirk/{name}", "--json"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert done.stdout, (name, done.returncode, done.stderr[-2000:])
        return done.returncode, json.loads(done.stdout)

    with ThreadPoolExecutor(3) as pool:
        results = dict(zip(PROFILES, pool.map(conform, PROFILES), strict=True))
    fired: dict[str, frozenset[str]] = {}
    expected: dict[str, frozenset[str]] = {}
    for name, (status, document) in results.items():
        found = {
            f["rule"]
            for case in document["cases"]
            for f in case["findings"]
            if f["severity"] in ("warning", "error")
        }
        fired[name] = frozenset(found)
        expected[name] = PROFILES[name].expected("plain") | PROFILES[name].expected("tools")
        if name == "clean":
            assert status == 0, document["summary"]
            assert {c["verdict"] for c in document["cases"]} == {"pass"}, [
                (c["case"], c["verdict"], c["why"]) for c in document["cases"]
            ]
    table = matrix(fired, expected)
    (ROOT / "test-output").mkdir(exist_ok=True)
    (ROOT / "test-output" / "quirks-conform-matrix.txt").write_text(table + "\n")
    with capsys.disabled():
        print("\n\nquirk profiles x rules (streamscope conform, every case)\n" + table)
    assert fired == expected
