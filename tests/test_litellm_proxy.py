"""A real third-party gateway in the tests (issue 30): LiteLLM's proxy (1.82.6, pinned in
tests/servers/litellm-requirements.txt) in front of the quirky upstream, each profile routed as
an OpenAI-compatible model (``openai/`` provider, ``api_base`` the profile's base URL). Each
profile's plain and tool-call requests are recorded through the proxy with ``streamscope
record`` and judged by the rule catalogue; the matrix is printed and written to
test-output/litellm-matrix.txt.

What LiteLLM 1.82.6 does differently from the upstream it re-streams (observed here; it parses
every upstream chunk into its own ``ModelResponseStream`` and writes that out again):

* ``data: [DONE]`` always ends the stream, whether the upstream sent one or not
  (``gateway-no-done``: done-missing is gone);
* tool-call fragments get an ``index`` back (``ollama-pre-0.4.7``: tool-call-index-missing is
  gone) — but ``0`` for every call, so two parallel calls share one index
  (tool-call-index-reused, an error: clients merge them into one) —, ``"type": "function"`` on
  every fragment, and ``arguments`` always a string (an object
  is serialized: ``tgi-object-arguments``, tool-call-arguments-not-string is gone);
* usage is moved: per-chunk usage is dropped and one usage chunk comes last (``vllm-0.5.4-usage``:
  usage-every-chunk is gone), but that chunk carries ``choices: [{"index": 0, "delta": {}}]``
  instead of ``choices: []`` — so **every** profile through LiteLLM triggers usage-with-choices,
  the behaviour its rule cites (BerriAI/litellm#28735);
* a repeated finish reason is sent once (``sglang-double-finish``: finish-reason-repeated is
  gone);
* Azure's empty-choices first chunk is kept as a chunk with ``choices: [{"index": 0, "delta":
  {}}]`` (no ``prompt_filter_results``, ``id: ""`` kept): empty-choices-chunk is gone, and the
  role that the upstream's next chunk carried is not sent at all (role-missing);
* what it passes through unchanged: the chunk ids (the upstream's ``chatcmpl-...``, no new id
  per chunk for the ``openai/`` provider), the tool-call ids, a tool-call id repeated on every
  fragment (``deepseek-repeated-tool-id``: tool-call-id-changed stays), ``"name": ""`` on
  continuing fragments (``lmstudio-empty-name``: tool-call-name-empty stays),
  ``system_fingerprint``;
* ``n: 2``: the first finish reason ends the stream as it sees it: its usage chunk comes right
  there, with its own token counts (not the upstream's), then choice 1's text, whose role and
  finish reason are never sent (role-missing, finish-reason-missing);
* and cosmetic: ``created`` is its own clock's, the upstream's first ``{"role": "assistant",
  "content": ""}`` chunk is merged into the first content chunk, ``finish_reason: null`` and
  ``logprobs: null`` are left out of the chunks.

Seen with ``streamscope conform`` through it too: ``reasoning_effort`` is refused with a 400
(``UnsupportedParamsError`` for the ``openai/`` provider unless ``drop_params``), and an invalid
body gets LiteLLM's own 400 after two retries.

Marked slow: the proxy answers 5 to 11 s after it is started (its install, once, by
./scripts/test: about 45 s)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .conform_kit import documented_verdicts
from .litellm_proxy import MASTER_KEY, UPSTREAM_KEY, LiteLLMProxy, command
from .quirk_runs import matrix, record
from .quirky_upstream import KINDS, PROFILES, QuirkyUpstream

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(
        command() is None, reason="LiteLLM is not installed (./scripts/test installs it)"
    ),
]
ROOT = Path(__file__).resolve().parent.parent
KEY_ENV = "STREAMSCOPE_TEST_LITELLM_KEY"

# What each profile triggers through LiteLLM (warning and error rules), per kind of request.
ALWAYS = frozenset({"usage-with-choices"})  # record asks for usage; LiteLLM's usage chunk
THROUGH_LITELLM: dict[str, dict[str, frozenset[str]]] = {
    name: {kind: ALWAYS for kind in KINDS} for name in PROFILES
}
THROUGH_LITELLM["azure-content-filter"] = {k: ALWAYS | {"role-missing"} for k in KINDS}
THROUGH_LITELLM["deepseek-repeated-tool-id"] = {
    "plain": ALWAYS,
    "tools": ALWAYS | {"tool-call-id-changed"},
    "parallel": ALWAYS | {"tool-call-id-changed"},
}
# The empty name on continuing fragments is passed through (below): tool-call-name-empty stays.
THROUGH_LITELLM["lmstudio-empty-name"] = {
    "plain": ALWAYS,
    "tools": ALWAYS | {"tool-call-name-empty"},
    "parallel": ALWAYS | {"tool-call-name-empty"},
}
# The index it puts back is 0 for every call: two calls on one index.
THROUGH_LITELLM["ollama-pre-0.4.7"]["parallel"] = ALWAYS | {"tool-call-index-reused"}


@pytest.fixture(scope="module")
def quirky():
    server = QuirkyUpstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def litellm(quirky, tmp_path_factory):
    routes = {f"quirk-{name}": quirky.profile_url(name) for name in PROFILES}
    proxy = LiteLLMProxy(tmp_path_factory.mktemp("litellm"), routes).start()
    yield proxy
    proxy.stop()
    assert proxy.process is not None and proxy.process.poll() is not None


def chunks(payloads: list[Any]) -> list[dict[str, Any]]:
    return [p for p in payloads if isinstance(p, dict)]


def fragments(payloads: list[Any]) -> list[dict[str, Any]]:
    return [
        fragment
        for chunk in chunks(payloads)
        for choice in chunk.get("choices") or []
        for fragment in (choice.get("delta") or {}).get("tool_calls") or []
    ]


def through(litellm, quirky, name: str, kind: str, folder: Path, monkeypatch) -> Any:
    monkeypatch.setenv(KEY_ENV, MASTER_KEY)
    return record(litellm.url, f"quirk-{name}", kind, folder, "--api-key-env", KEY_ENV)


def test_every_profile_through_litellm(litellm, quirky, tmp_path, monkeypatch, capsys):
    fired: dict[str, frozenset[str]] = {}
    expected: dict[str, frozenset[str]] = {}
    problems = []
    for name in PROFILES:
        for kind in KINDS:
            run = through(litellm, quirky, name, kind, tmp_path / name, monkeypatch)
            assert run.status == 0, (name, kind, run.stderr, litellm.tail())
            row = f"{name} {kind}"
            fired[row], expected[row] = run.rules, THROUGH_LITELLM[name][kind]
            if run.rules != expected[row]:
                problems.append(
                    f"{row}: fired {sorted(run.rules)}, expected {sorted(expected[row])}"
                )
            assert run.payloads[-1] == "[DONE]", row  # always, even from gateway-no-done
    started = f"(the proxy answered {litellm.startup_seconds:.1f} s after it was started)"
    table = matrix(fired, expected) + "\n" + started
    out = ROOT / "test-output"
    out.mkdir(exist_ok=True)
    (out / "litellm-matrix.txt").write_text(table + "\n")
    with capsys.disabled():
        print("\n\nquirk profiles through LiteLLM 1.82.6 x rules\n" + table)
    assert not problems, "\n".join(problems)


def test_what_litellm_sends_upstream(litellm, quirky, tmp_path, monkeypatch):
    before = len(quirky.requests)
    run = through(litellm, quirky, "clean", "tools", tmp_path, monkeypatch)
    assert run.status == 0, run.stderr
    sent = quirky.requests[before:]
    assert len(sent) == 1
    body, headers = sent[0]["body"], sent[0]["headers"]
    assert sent[0]["path"] == "/quirk/clean/v1/chat/completions"
    assert headers["authorization"] == f"Bearer {UPSTREAM_KEY}"  # its own key, not the client's
    assert body["model"] == "quirk-clean"  # the name after openai/
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}  # passed on as asked
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]


def test_litellm_rewrites_the_quirks_it_parses(litellm, quirky, tmp_path, monkeypatch):
    """The re-streaming, profile by profile: what is fixed, what is moved, what passes."""

    def payloads(name: str, kind: str) -> list[Any]:
        return through(litellm, quirky, name, kind, tmp_path / name, monkeypatch).payloads

    # index re-added (0, for every call: two parallel calls share it); type on every
    # fragment; arguments a string
    calls = fragments(payloads("ollama-pre-0.4.7", "tools"))
    assert calls and all(f.get("index") == 0 and f.get("type") == "function" for f in calls)
    parallel = fragments(payloads("ollama-pre-0.4.7", "parallel"))
    assert [f["index"] for f in parallel] == [0, 0] and len({f["id"] for f in parallel}) == 2
    tgi = fragments(payloads("tgi-object-arguments", "tools"))
    arguments = "".join(f["function"]["arguments"] for f in tgi)
    assert all(isinstance(f["function"]["arguments"], str) for f in tgi)
    assert json.loads(arguments)["city"] == "Paris"
    # usage: per-chunk usage dropped, one usage chunk last, with a choice in it
    vllm = chunks(payloads("vllm-0.5.4-usage", "plain"))
    with_usage = [c for c in vllm if c.get("usage")]
    assert with_usage == [vllm[-1]] and vllm[-1]["choices"] == [{"index": 0, "delta": {}}]
    # one finish reason, not two
    finishes = [
        c["finish_reason"]
        for p in chunks(payloads("sglang-double-finish", "plain"))
        for c in p["choices"]
        if c.get("finish_reason")
    ]
    assert finishes == ["stop"]
    # Azure's filter chunk: a choice put in, prompt_filter_results dropped, id "" kept, no role
    azure = chunks(payloads("azure-content-filter", "plain"))
    assert azure[0]["id"] == "" and azure[0]["choices"] == [{"index": 0, "delta": {}}]
    assert "prompt_filter_results" not in azure[0]
    assert not any("role" in c["delta"] for p in azure for c in p["choices"])
    # passed through: the repeated id, the empty name, the upstream's chunk id
    deepseek = fragments(payloads("deepseek-repeated-tool-id", "tools"))
    assert len(deepseek) > 1 and len({f.get("id") for f in deepseek}) == 1
    lmstudio = fragments(payloads("lmstudio-empty-name", "tools"))
    assert [f["function"].get("name") for f in lmstudio[1:]] == [""] * (len(lmstudio) - 1)
    clean = chunks(payloads("clean", "plain"))
    ids = {c["id"] for c in clean}
    assert len(ids) == 1 and next(iter(ids)).startswith("chatcmpl-quirky-")
    # the role rides on the first content chunk; no null finish reasons written
    assert clean[0]["choices"][0]["delta"] == {"role": "assistant", "content": "Hello"}
    assert not any(
        "finish_reason" in c and c["finish_reason"] is None for p in clean for c in p["choices"]
    )


def test_litellm_with_two_choices(litellm, quirky, tmp_path, monkeypatch):
    """``n: 2`` through LiteLLM: the first finish reason ends its stream as it sees it — it
    writes its usage chunk there (with its own token counts), and choice 1's text still comes
    after, but choice 1's role and finish reason are never sent."""
    monkeypatch.setenv(KEY_ENV, MASTER_KEY)
    run = record(
        litellm.url, "quirk-clean", "plain", tmp_path, "--api-key-env", KEY_ENV, "--n", "2"
    )
    assert run.rules == {"finish-reason-missing", "role-missing", "usage-with-choices"}
    sent = chunks(run.payloads)
    choices = [c for p in sent for c in p["choices"]]
    texts = {
        i: "".join(c["delta"].get("content") or "" for c in choices if c["index"] == i)
        for i in (0, 1)
    }
    assert texts[0] and texts[1] == texts[0]  # both choices' text came through
    finishes = [(c["index"], c["finish_reason"]) for c in choices if c.get("finish_reason")]
    assert finishes == [(0, "stop")]  # choice 1 never finished
    assert [c["index"] for c in choices if "role" in c["delta"]] == [0]
    usage = [p["usage"] for p in sent if p.get("usage")]
    assert len(usage) == 1 and run.payloads[-1] == "[DONE]"
    upstream = chunks(payloads_from_upstream(quirky, "quirk-clean"))
    # its usage is its own count, made before the upstream's usage chunk came
    assert usage[0]["completion_tokens"] != upstream[-1]["usage"]["completion_tokens"]
    assert [
        (c["index"], c["finish_reason"])
        for p in upstream
        for c in p["choices"]
        if c.get("finish_reason")
    ] == [(0, "stop"), (1, "stop")]


def payloads_from_upstream(quirky, model: str) -> list[Any]:
    """What the upstream wrote for its last request of that model (its body writes), once it
    has written its ``[DONE]`` (the proxy may have answered its client before)."""
    record_ = next(r for r in reversed(quirky.requests) if (r["body"] or {}).get("model") == model)
    deadline = time.monotonic() + 10
    while b"[DONE]" not in b"".join(data for _, data in record_["writes"]):
        assert time.monotonic() < deadline, "the upstream never finished its stream"
        time.sleep(0.02)
    return payloads_of_sse(b"".join(data for _, data in record_["writes"]))


def payloads_of_sse(body: bytes) -> list[Any]:
    out: list[Any] = []
    for event in body.split(b"\n\n"):
        if event.startswith(b"data: "):
            text = event[6:].decode()
            out.append(text if text == "[DONE]" else json.loads(text))
    return out


# `streamscope conform` through LiteLLM in front of the clean profile: the card in
# docs/conform.md ("A real server: LiteLLM's proxy"). Each case not listed passes.
CONFORM_THROUGH_LITELLM = {
    # its usage chunk carries a choice (BerriAI/litellm#28735): include-usage's own check fails,
    # and the rule makes max-tokens (which asks for usage to count) warn
    "include-usage": ("fail", {"usage-with-choices"}),
    "max-tokens": ("warn", {"usage-with-choices"}),
    # n: 2: choice 1's role and finish reason are never sent (test_litellm_with_two_choices)
    "n2": ("fail", {"role-missing", "finish-reason-missing"}),
    # the openai/ provider refuses reasoning_effort with a 400 (UnsupportedParamsError)
    "reasoning": ("unsupported", set()),
}


def test_conform_through_litellm(litellm, quirky, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, MASTER_KEY)
    argv = [sys.executable, "-m", "app.cli", "conform", "--base-url", litellm.url]
    argv += ["--model", "quirk-clean", "--api-key-env", KEY_ENV, "--out", str(tmp_path)]
    card = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT)
    as_json = subprocess.run(
        [*argv, "--json"], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert card.returncode == as_json.returncode == 1, (card.stderr[-2000:], litellm.tail())
    cases = json.loads(as_json.stdout)["cases"]
    seen = {c["case"]: (c["verdict"], {f["rule"] for f in c["findings"]}) for c in cases}
    expected = {c["case"]: CONFORM_THROUGH_LITELLM.get(c["case"], ("pass", set())) for c in cases}
    assert seen == expected
    reasoning = next(c for c in cases if c["case"] == "reasoning")
    assert reasoning["status"] == 400 and "UnsupportedParamsError" in reasoning["why"]
    rows = [line for line in card.stdout.splitlines() if line.split(" ", 1)[0] in seen]
    assert len(rows) == len(cases)  # one line each, a multi-line 400 included
    documented = documented_verdicts("A real server: LiteLLM's proxy")
    assert documented == {case: verdict for case, (verdict, _) in seen.items()}
    (ROOT / "test-output").mkdir(exist_ok=True)
    (ROOT / "test-output" / "litellm-conform-card.txt").write_text(card.stdout)
    with capsys.disabled():
        print("\n\nstreamscope conform through LiteLLM 1.82.6 (clean upstream)\n" + card.stdout)
