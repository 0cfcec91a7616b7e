"""One protocol: the Python module, the JS mirror and the doc list the same message types and
version, and the server only ever encodes types from the closed set."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import msgspec
import pytest

from app import protocol

ROOT = Path(__file__).resolve().parent.parent
JS = (ROOT / "static" / "js" / "protocol.js").read_text()
DOC = (ROOT / "docs" / "protocol.md").read_text()


def js_list(name: str) -> list[str]:
    body = re.search(rf"export const {name} = Object\.freeze\(\[(.*?)\]\)", JS, re.S)
    assert body, name
    return re.findall(r'"([a-z_]+)"', body.group(1))


def doc_section(title: str) -> str:
    start = DOC.index(f"## {title}")
    following = DOC.find("\n## ", start + 1)
    return DOC[start : following if following > 0 else len(DOC)]


def test_js_mirror_matches_python():
    assert js_list("SERVER_MESSAGES") == list(protocol.SERVER_MESSAGES)
    assert js_list("CLIENT_MESSAGES") == list(protocol.CLIENT_MESSAGES)
    assert js_list("RAW_COLUMNS") == list(protocol.RAW_COLUMNS)
    assert re.search(r"export const VERSION = (\d+);", JS).group(1) == str(protocol.VERSION)
    assert "streamscope.v${VERSION}" in JS
    assert f"streamscope.v{protocol.VERSION}" == protocol.SUBPROTOCOL
    for name in ("MAX_RAW_REQUEST", "UNTIMED_PACE_MS"):  # said once each side (issue 27)
        found = re.search(rf"export const {name} = ([0-9.]+);", JS)
        assert found and float(found.group(1)) == float(getattr(protocol, name)), name
    from app.settings import DEFAULTS

    assert DEFAULTS["untimed_pace_ms"] == protocol.UNTIMED_PACE_MS  # the setting's default
    from app.live.apis import DEFAULT_API

    assert protocol.DEFAULT_API == DEFAULT_API  # the live runs' default API (issue 27, section 3)
    found = re.search(r'export const DEFAULT_API = "([a-z-]+)";', JS)
    assert found and found.group(1) == protocol.DEFAULT_API


@pytest.mark.parametrize(
    ("section", "names"),
    [("Server to page", protocol.SERVER_MESSAGES), ("Page to server", protocol.CLIENT_MESSAGES)],
)
def test_doc_has_one_heading_and_one_example_per_type(section, names):
    text = doc_section(section)
    assert re.findall(r"^### (\w+)$", text, re.M) == list(names)
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    assert [example["type"] for example in examples] == list(names)


def test_status_states_agree_in_python_js_and_doc():
    assert js_list("STATUS_STATES") == list(protocol.STATUS_STATES)
    listed = re.findall(
        r"^- `([a-z_]+)`", doc_section("Server to page").split("### status")[1], re.M
    )
    assert listed == list(protocol.STATUS_STATES)


def test_encode_refuses_a_status_state_outside_the_set():
    assert (
        json.loads(protocol.encode("status", state="fallback", message="m"))["state"] == "fallback"
    )
    with pytest.raises(ValueError):
        protocol.encode("status", state="stopped", message="m")


def test_doc_states_the_version():
    assert f"version {protocol.VERSION}" in DOC
    assert f"`{protocol.SUBPROTOCOL}`" in DOC


def test_encode_refuses_types_outside_the_set():
    assert json.loads(protocol.encode("end", reason="complete")) == {
        "type": "end",
        "reason": "complete",
    }
    with pytest.raises(ValueError):
        protocol.encode("surprise")


def test_decode_client_refuses_unknown_and_malformed():
    assert protocol.decode_client('{"type": "stop"}') == {"type": "stop"}
    for bad in ("nope", "[]", '{"type": "hello"}', "{}"):
        with pytest.raises(protocol.ProtocolError):
            protocol.decode_client(bad)


def _shape_check(message: dict) -> None:
    """The message fits its type's shape: every field named there, of its type, none else."""
    fields = {k: v for k, v in message.items() if k != "type"}
    msgspec.convert(fields, protocol.SERVER_SHAPES[message["type"]])


def _server_examples() -> list[dict]:
    text = doc_section("Server to page")
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, re.S)]


def test_every_server_example_in_the_doc_fits_its_shape():
    examples = _server_examples()
    assert [e["type"] for e in examples] == list(protocol.SERVER_MESSAGES)
    for example in examples:
        _shape_check(example)
    with pytest.raises(msgspec.ValidationError):
        _shape_check({"type": "end", "reason": "complete", "surprise": 1})
    with pytest.raises(msgspec.ValidationError):
        _shape_check(
            {"type": "hello", "version": "2", "server": "s", "max_message": 1, "max_raw_request": 1}
        )


def test_the_doc_field_tables_are_the_shapes():
    """docs/protocol.md's table under each server message is its shape's
    (scripts/protocol_tables.py writes them)."""
    spec = importlib.util.spec_from_file_location(
        "protocol_tables", ROOT / "scripts" / "protocol_tables.py"
    )
    assert spec and spec.loader
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    assert tables.tables(DOC) == DOC
    for name, shape in protocol.SERVER_SHAPES.items():
        section = doc_section("Server to page").split(f"### {name}\n")[1].split("\n### ")[0]
        assert "\n".join(protocol.field_rows(shape)) in section, name


def test_raw_meta_columns_are_its_shape():
    fields = [f.name for f in msgspec.structs.fields(protocol.RawMeta)]
    assert fields == ["stream", "start", *protocol.RAW_COLUMNS]


def test_encode_refuses_a_field_outside_the_shape_and_a_missing_one():
    with pytest.raises(ValueError, match="not in its shape"):
        protocol.encode("end", reason="complete", surprise=1)
    with pytest.raises(ValueError, match=r"\['message'\] missing"):
        protocol.encode("error", code="x")
    assert json.loads(protocol.encode("status", state="started", message="m", capture="c"))


def test_every_message_of_every_demo_fits_its_shape(client):
    """The messages a replay sends (the demos' timeline documents are those messages)."""
    from app.demos import catalog

    seen = set()
    for name in catalog():
        url = f"/api/demos/{name}/timeline?raw=1"
        answer = client.get(url, headers={"Host": "127.0.0.1:5000"}, buffered=True)
        assert answer.status_code == 200, name
        document = json.loads(answer.get_data())
        for message in document["messages"] + document["raw"]:
            _shape_check(message)
            seen.add(message["type"])
    assert {"capture", "raw_meta", "events", "summary", "end", "raw"} <= seen
