"""The real client judges on real captures (issue 29, "Client judges"; docs/judges.md): each
judge says ``ok`` on streams it reads as Streamscope does, and names the crash or the field on
streams where the client is known to break. The Python judges are the pinned ``judges`` extra;
the Node judges are the pinned app/judges/node/package.json, installed by ``streamscope judges
install`` (scripts/test) or, when that has not been run here, by this module into a folder of
its own."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from app.captures import Limits
from app.captures.ingest import ingest
from app.cli import main
from app.judges.capture import judge_stream
from app.judges.registry import JUDGES
from app.judges.runner import Caps

from . import judges_setup
from .helpers import corpus
from .quirky_upstream import stream_of

pytestmark = pytest.mark.integration  # real clients in child processes, Node included

ROOT = Path(__file__).resolve().parent.parent
CAPS = Caps(timeout_s=60.0)
PACKAGES = {judge.client: judge.package for judge in JUDGES}


@pytest.fixture(scope="module")
def node_judges(tmp_path_factory) -> Path:
    return judges_setup.node_judges(tmp_path_factory)


def verdicts(data: bytes, folder: Path) -> dict[str, dict]:
    stream = ingest(data, None, Limits(), store=False).capture.streams[0]
    found = judge_stream(stream, CAPS, folder)
    return {f"{v['client']} {v['api'].split(' (')[0]}": v for v in found}


def pinned_python() -> dict[str, str]:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["judges"]
    return dict(requirement.split("==") for requirement in extra)


def pinned_node() -> dict[str, str]:
    return json.loads((ROOT / "app" / "judges" / "node" / "package.json").read_text())[
        "dependencies"
    ]


OK = [
    ("openai-gpt4o-content-plain.sse", 4),
    ("openai-gpt4o-tool-single.sse", 4),
    ("openai-gpt4o-tool-parallel.sse", 4),
    ("dialects/anthropic-claude-haiku-4-5-tool-use.sse", 2),
    ("dialects/anthropic-claude-haiku-4-5-thinking-signature.sse", 2),
    ("dialects/anthropic-claude-sonnet-4-5-text-ping.sse", 2),
    ("dialects/responses-openai-gpt-4o-function-call.sse", 2),
    ("dialects/responses-openai-gpt-4o-text.sse", 2),
    ("dialects/gemini-2-0-flash-function-call.sse", 1),
    ("dialects/gemini-2-0-flash-text-multibyte.sse", 1),
]


@pytest.mark.parametrize(("name", "count"), OK)
def test_every_judge_reads_a_well_formed_stream_as_streamscope_does(name, count, node_judges):
    found = verdicts(corpus(name), node_judges)
    assert len(found) == count, sorted(found)
    assert {key: v["verdict"] for key, v in found.items()} == dict.fromkeys(found, "ok")
    python, node = pinned_python(), pinned_node()
    for verdict in found.values():
        package = PACKAGES[verdict["client"]]
        assert verdict["version"] == {**python, **node}[package]
        assert verdict["field"] is None and verdict["error"] is None


def test_tool_calls_without_index_crash_openai_python_and_the_ai_sdks_openai_provider(node_judges):
    """openai/openai-python#2806: ``ChatCompletionStreamState`` indexes its snapshot's tool calls
    with the delta's ``index`` (openai/lib/streaming/chat/_completions.py, ``tool_calls[
    tool_call_delta.index]``), so a fragment without one is a TypeError. The pinned 3.57.0 still
    crashes this way. @ai-sdk/openai's chunk schema requires ``index: z.number()``: a
    validation error. LangChain and @ai-sdk/openai-compatible read the call (Mistral's capture,
    tests/captures/SOURCES.md)."""
    found = verdicts(corpus("mistral-small-tool-call-no-index.sse"), node_judges)
    openai = found["openai-python chat.completions.stream"]
    assert openai["verdict"] == "crash"
    assert openai["error"] == "TypeError: list indices must be integers or slices, not NoneType"
    sdk = found["@ai-sdk/openai streamText openai.chat"]
    assert sdk["verdict"] == "crash" and sdk["error"].startswith("AI_TypeValidationError")
    assert found["langchain-openai ChatOpenAI.stream"]["verdict"] == "ok"
    assert (
        found["@ai-sdk/openai-compatible streamText openaiCompatible.chatModel"]["verdict"] == "ok"
    )


def test_an_empty_role_fails_the_ai_sdks_openai_provider_validation(node_judges):
    """vercel/ai#15464: MiniMax and GLM send ``"role": ""``. @ai-sdk/openai 3.0.141's chunk
    schema has ``role: z.enum(["assistant"]).nullish()``, so the chunk fails validation and the
    stream is an error; @ai-sdk/openai-compatible 2.0.92 fixed it (``z.enum(["assistant",
    ""])``) and reads it. The stream is a real capture with its one role made empty."""
    data = corpus("openai-gpt4o-content-plain.sse")
    assert data.count(b'"role":"assistant"') == 1
    found = verdicts(data.replace(b'"role":"assistant"', b'"role":""'), node_judges)
    sdk = found["@ai-sdk/openai streamText openai.chat"]
    assert sdk["verdict"] == "crash" and sdk["error"].startswith("AI_TypeValidationError")
    assert (
        found["@ai-sdk/openai-compatible streamText openaiCompatible.chatModel"]["verdict"] == "ok"
    )
    assert found["openai-python chat.completions.stream"]["verdict"] == "ok"


def test_choices_interleaved_differ_in_langchain_and_the_ai_sdk(node_judges):
    """n=3: three choices' deltas interleaved. openai-python keeps each choice apart; LangChain
    and the AI SDK add every choice's text into one."""
    found = verdicts(corpus("openai-gpt4o-n3-choices.sse"), node_judges)
    assert found["openai-python chat.completions.stream"]["verdict"] == "ok"
    lang = found["langchain-openai ChatOpenAI.stream"]
    assert (lang["verdict"], lang["field"]) == ("differs", "text")
    assert lang["ours"] == '{"city":"San Francisco","temperature":65,"units":"f"}'
    assert lang["theirs"].startswith('{"{"{"city')
    assert found["@ai-sdk/openai streamText openai.chat"]["field"] == "text"


def test_an_error_inside_a_200_stream_crashes_the_python_clients(node_judges):
    found = verdicts(corpus("openrouter-minimax-error-midstream.sse"), node_judges)
    for key in ("openai-python chat.completions.stream", "langchain-openai ChatOpenAI.stream"):
        assert (found[key]["verdict"], found[key]["error"]) == (
            "crash",
            "APIError: Token limit reached",
        )


def test_a_name_sent_again_is_doubled_by_the_python_clients(node_judges):
    """Novita's Kimi sends the call's id and name on every fragment: openai-python and
    LangChain add the names up."""
    found = verdicts(corpus("openrouter-novita-kimi-tool-repeated-id-name.sse"), node_judges)
    openai = found["openai-python chat.completions.stream"]
    assert (openai["verdict"], openai["field"]) == ("differs", "tool_calls[0].name")
    assert (openai["ours"], openai["theirs"]) == ("llm_version", "llm_versionllm_version")


def test_an_empty_name_on_the_continuing_fragments_is_read_right_by_every_judge(node_judges):
    """LM Studio (lmstudio-ai/lmstudio-bug-tracker#649) and the zai-glm-5-2 fixture of the AI
    SDK's Mistral package send ``"name": ""`` on the fragments after the call's first
    (tool-call-name-empty, docs/rules.md). openai-python and LangChain add the names up, which
    ``""`` leaves as it was; the AI SDK takes the first fragment's name: every judge reads the
    call's name. The stream of tests/quirky_upstream.py's profile and the real capture."""
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": "weather in Paris?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather"}}],
    }
    for data in (
        stream_of("lmstudio-empty-name", body),
        corpus("mistral-endpoint-incremental-tool-call.sse"),
    ):
        assert b'"name": ""' in data or b'"name":""' in data
        found = verdicts(data, node_judges)
        assert len(found) == 4, sorted(found)
        assert {key: v["verdict"] for key, v in found.items()} == dict.fromkeys(found, "ok")


def test_inspect_json_judges_adds_the_verdicts_of_each_stream(node_judges, capsys):
    path = Path(__file__).parent / "captures" / "mistral-small-tool-call-no-index.sse"
    data_dir = node_judges.parent.parent
    assert main(["inspect", "--json", "--judges", "--data-dir", str(data_dir), str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    judges = document["streams"][0]["judges"]
    assert [(v["client"], v["verdict"]) for v in judges] == [
        ("openai-python", "crash"),
        ("langchain-openai", "ok"),
        ("@ai-sdk/openai", "crash"),
        ("@ai-sdk/openai-compatible", "ok"),
    ]
    assert set(judges[0]) == {
        "client",
        "version",
        "verdict",
        "field",
        "ours",
        "theirs",
        "error",
        "api",
    }
    assert main(["inspect", "--json", str(path)]) == 0
    assert "judges" not in json.loads(capsys.readouterr().out)["streams"][0]


def test_the_ai_sdks_openai_provider_reads_no_reasoning_content(node_judges):
    """DeepSeek's ``reasoning_content``: @ai-sdk/openai-compatible reads it as reasoning,
    @ai-sdk/openai (OpenAI's own chat API has no such field) leaves it out."""
    found = verdicts(corpus("deepseek-reasoner-reasoning-content.sse"), node_judges)
    assert (
        found["@ai-sdk/openai-compatible streamText openaiCompatible.chatModel"]["verdict"] == "ok"
    )
    sdk = found["@ai-sdk/openai streamText openai.chat"]
    assert (sdk["verdict"], sdk["field"], sdk["theirs"]) == ("differs", "reasoning", "")
    assert sdk["ours"].startswith("We need to count")


# The servers' quirks are in the chat captures (tests/captures/SOURCES.md): each goes through
# its judges here; the other dialects' captures are those of the OK list above (a sweep of all
# of them costs four minutes of the suite's two cores).
ALL = sorted(path.name for path in (ROOT / "tests" / "captures").glob("*.sse"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL)
def test_every_real_capture_gets_a_verdict_from_every_judge_of_its_dialect(name, node_judges):
    """No judge hangs or dies on a real capture: each says ok, differs or crash with what it
    raised, in the contract's shape, with its version."""
    stream = ingest(corpus(name), None, Limits(), store=False).capture.streams[0]
    found = judge_stream(stream, CAPS, node_judges)
    keys = {"client", "version", "verdict", "field", "ours", "theirs", "error", "api"}
    for verdict in found:
        assert set(verdict) == keys
        assert verdict["verdict"] in ("ok", "differs", "crash"), verdict
        assert verdict["version"]
        assert (verdict["field"] is not None) is (verdict["verdict"] == "differs")
        assert (verdict["error"] is not None) is (verdict["verdict"] == "crash")
        if verdict["error"] is not None:
            assert "the judge's process ended" not in verdict["error"], verdict
