"""One registry record per format and per dialect (app/captures/formats.py,
app/domain/dialects): the reader, the scrubber, the exports, the pages, the upload form and the
command line all read them, and a wrong guess of either can be fixed by naming it."""

from __future__ import annotations

import json

from app.captures import FORMAT_NAMES, FORMATS, Capture, Limits, detect, read_capture
from app.captures.ingest import IngestError, ingest
from app.cli import build_parser
from app.domain.dialects import DIALECTS
from app.domain.dialects import NAMES as DIALECT_NAMES
from app.services.sources import Sources
from app.services.uploads import Importer

from .dialects.common import DIALECT_CAPTURES
from .helpers import capture_path


def test_detection_keeps_the_reason_it_chose():
    capture = read_capture(capture_path("openai-gpt4o-tool-single.sse").read_bytes())
    assert (capture.format, capture.format_reason) == ("sse", "an SSE field at a line start")
    frames = read_capture(
        (DIALECT_CAPTURES / "bedrock-converse-nova-micro-text.eventstream").read_bytes()
    )
    assert frames.format == "eventstream" and "prelude" in frames.format_reason
    named = read_capture(b"data: {}\n\n", "sse")
    assert named.format_reason == "named by the user"


def test_every_format_is_detected_by_its_own_record_in_order():
    for fmt in FORMATS:
        assert fmt.name in FORMAT_NAMES and fmt.title and fmt.noun and fmt.suffix.startswith(".")
    probe = Capture(format=None)
    assert detect(b"HTTP/1.1 200 OK\r\n\r\ndata: {}\n\n", probe) == "curl"
    assert probe.format_reason == "an HTTP status line first"


def test_the_command_line_offers_every_format_and_dialect():
    inspect = build_parser()._subparsers._group_actions[0].choices["inspect"]
    options = {a.dest: a for a in inspect._actions}
    assert sorted(options["format"].choices) == sorted(FORMAT_NAMES)
    assert sorted(options["dialect"].choices) == sorted(DIALECT_NAMES)


def test_a_named_dialect_overrides_detection_and_a_wrong_name_is_refused():
    data = (DIALECT_CAPTURES / "anthropic-claude-haiku-4-5-tool-use.sse").read_bytes()
    detected = ingest(data, None, Limits(), store=True).capture.streams[0]
    assert detected.dialect_name == "anthropic-messages"
    forced = ingest(data, None, Limits(dialect="chat-completions"), store=True).capture
    assert forced.streams[0].dialect_name == "chat-completions"
    assert forced.streams[0].dialect_reason == "named by the user"
    try:
        ingest(data, None, Limits(dialect="klingon"), store=True)
    except IngestError as exc:
        assert exc.code == "bad_dialect" and "anthropic-messages" in exc.message
    else:
        raise AssertionError("an unknown dialect was accepted")


def test_a_payload_the_named_dialect_does_not_read_says_which_dialect_was_read():
    data = (DIALECT_CAPTURES / "anthropic-claude-haiku-4-5-tool-use.sse").read_bytes()
    (stream,) = read_capture(data, limits=Limits(dialect="gemini")).streams
    summaries = [e.summary for e in stream.events if e.kind == "payload" and e.category != "ping"]
    assert summaries and all(
        s.endswith("not a payload of Gemini streamGenerateContent") for s in summaries
    ), summaries[:3]
    assert not any("chat completion" in s for s in summaries)
    chat = read_capture(data, limits=Limits(dialect="chat-completions")).streams[0]
    assert any(
        e.summary.endswith("not a chat completion chunk")
        for e in chat.events
        if e.kind == "payload"
    )


class ReadOnceStore:
    """A store whose stored bytes must never be read back (the cache has them already)."""

    def __init__(self) -> None:
        self.records: dict = {}

    def add(self, new):
        import time

        from app.storage import CaptureRecord

        record = CaptureRecord(
            id="c1",
            title=new.title,
            format=new.format,
            created=time.time(),
            size=len(new.data),
            streams=new.streams,
            sha256="",
            expires=None,
            delete_hash="",
            redacted=new.redacted,
            dialect=new.dialect,
        )
        self.records[record.id] = record
        return record, "token"

    def get(self, capture_id):
        return self.records.get(capture_id)

    def read_bytes(self, capture_id):
        raise AssertionError("the upload was read a second time")


def test_an_upload_fills_the_parsed_capture_cache_so_its_first_open_reads_nothing_again():
    store = ReadOnceStore()
    sources = Sources(Limits(), 64 << 20, store)  # type: ignore[arg-type]
    importer = Importer(store, Limits(), 1, sources.remember)  # type: ignore[arg-type]
    data = capture_path("openai-gpt4o-tool-single.sse").read_bytes()
    imported = importer.run(data, title="t", expires=None, fmt=None, name=None)
    loaded = sources.stored(imported.record.id)
    assert loaded.capture is imported.capture


def test_the_home_page_lists_every_format_and_dialect_to_read_an_upload_as(tmp_path):
    from app.web import create_app

    client = create_app({"data_dir": str(tmp_path)}).test_client()
    page = client.get("/", headers={"Host": "127.0.0.1:5000"}).get_data(as_text=True)
    for fmt in FORMATS:
        assert f'<option value="{fmt.name}">' in page
    for dialect in DIALECTS:
        assert f'<option value="{dialect.name}">{dialect.title}</option>' in page


def test_inspect_json_says_why_it_chose_the_format():
    from app.report import render_json

    capture = read_capture(capture_path("openai-gpt4o-tool-single.sse").read_bytes())
    assert json.loads(render_json(capture))["format_reason"] == "an SSE field at a line start"
