"""A dialect added from outside, registered last, is found on its own captures and on none of
the corpus's (issue 27, section 2; docs/dialects.md, "Detection" and "Adding a dialect").

The toy dialect lives in a package written to a temporary folder, as a new dialect would:
one package with its ``Dialect`` record, and one line in the registry. Before, detection took
the first registered dialect that recognised a payload, so a dialect registered last was never
asked about a payload an earlier one claimed (chat claims anything with ``choices``)."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from app.captures import read_capture
from app.domain import dialects as registry

from .helpers import CAPTURES

TOY = textwrap.dedent(
    '''
    """Toyspeak: a dialect made up for a test. Each payload holds ``toy_text``, and ``choices``
    too, which a dialect that went by order alone would have taken for chat completions."""

    from typing import Any

    from app.domain.dialects.base import NAMED, Dialect, UsageFields
    from app.domain.events import Event, RawEvent, TextDelta
    from app.domain.interpret import PayloadInterpreter


    class ToyInterpreter(PayloadInterpreter):
        dialect = "toyspeak"

        def value(self, raw: RawEvent, value: Any) -> None:
            if isinstance(value, dict) and isinstance(value.get("toy_text"), str):
                self.add(TextDelta(choice=0, text=value["toy_text"]), raw)
            else:
                self.other(raw, value)


    def sniff(event: str | None, value: dict[str, Any]):
        return (NAMED, "a toy_text field") if isinstance(value.get("toy_text"), str) else None


    def assemble(events: list[Event]) -> dict[str, Any]:
        return {"toy": "".join(e.text for e in events if isinstance(e, TextDelta))}


    TOYSPEAK = Dialect(
        name="toyspeak",
        title="Toyspeak",
        interpreter=ToyInterpreter,
        sniff=sniff,
        assemble=assemble,
        usage=UsageFields("usage", "in", "out"),
    )
    '''
)
CAPTURE = (
    b'data: {"toy_text": "Hello", "choices": []}\n\n'
    b'data: {"toy_text": " toy", "choices": []}\n\n'
    b"data: [DONE]\n\n"
)


@pytest.fixture
def toyspeak(tmp_path, monkeypatch):
    package = tmp_path / "toyspeak"
    package.mkdir()
    (package / "__init__.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toyspeak")
    record = module.TOYSPEAK
    # The one line a new dialect adds to the registry: here, at its end.
    monkeypatch.setattr(registry, "DIALECTS", (*registry.DIALECTS, record))
    monkeypatch.setattr(registry, "NAMES", (*registry.NAMES, record.name))
    monkeypatch.setattr(registry, "_BY_NAME", {**registry._BY_NAME, record.name: record})
    yield record
    sys.modules.pop("toyspeak", None)


def test_a_dialect_registered_last_is_detected_on_its_own_captures(toyspeak):
    (stream,) = read_capture(CAPTURE, "sse").streams
    assert stream.dialect_name == "toyspeak" and stream.dialect_reason.startswith(
        "a toy_text field"
    )
    assert "".join(e.text for e in stream.events if e.kind == "text") == "Hello toy"
    assert not [d for d in stream.diagnostics if d.code.startswith("dialect_")]


def corpus() -> list[Path]:
    return [
        p
        for p in sorted(CAPTURES.rglob("*"))
        if p.is_file() and p.suffix != ".md" and "expected" not in p.parts
    ]


def dialects_read(paths: list[Path]) -> dict[str, list[str | None]]:
    found = {}
    for path in paths:
        try:
            capture = read_capture(path.read_bytes())
        except Exception as exc:  # reading never raises: a failure here is the test's
            raise AssertionError(f"{path.name}: {exc!r}") from exc
        found[path.name] = [s.dialect_name for s in capture.streams]
    return found


@pytest.mark.slow  # every capture of the corpus, read twice
def test_the_new_dialect_takes_no_capture_of_the_corpus(monkeypatch, tmp_path):
    paths = corpus()
    before = dialects_read(paths)
    package = tmp_path / "toyspeak"
    package.mkdir()
    (package / "__init__.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    record = importlib.import_module("toyspeak").TOYSPEAK
    monkeypatch.setattr(registry, "DIALECTS", (*registry.DIALECTS, record))
    monkeypatch.setattr(registry, "_BY_NAME", {**registry._BY_NAME, record.name: record})
    try:
        assert dialects_read(paths) == before
    finally:
        sys.modules.pop("toyspeak", None)


def test_no_payload_of_the_corpus_is_a_tie_or_a_guess():
    for path in corpus():
        for stream in read_capture(path.read_bytes()).streams:
            codes = {d.code for d in stream.diagnostics}
            assert not codes & {"dialect_tie", "dialect_guessed"}, path.name


def test_two_dialects_as_sure_are_said(toyspeak, monkeypatch):
    """A chat chunk that also holds ``toy_text``: both name themselves; the first registered
    reads it, and the tie is said."""
    data = b'data: {"toy_text": "x", "object": "chat.completion.chunk", "choices": []}\n\n'
    (stream,) = read_capture(data, "sse").streams
    assert stream.dialect_name == "chat-completions"
    (tie,) = [d for d in stream.diagnostics if d.code == "dialect_tie"]
    assert "Toyspeak" in tie.message and "OpenAI chat completions" in tie.message
