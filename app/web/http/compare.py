"""The compare page (docs/teaching.md, "Compare"): two outputs on one clock, their texts
diffed, their tool calls side by side, their metrics in one table.

URL form: ``/compare/<side>/<side>``, where a side is a source and, optionally, which output:

    <capture id>            a stored capture (its first stream's output 0)
    demos/<name>            a bundled demo
    <source>:<choice>       output (choice) <choice> of the source's first stream
    <source>:<stream>.<choice>   output <choice> of stream <stream>

so ``/compare/demos/n3-choices:0/demos/n3-choices:1`` compares two choices of one capture and
``/compare/<id>/demos/plain-text`` a capture with a demo. ``/compare?a=<side>&b=<side>`` (the
"Compare with…" form on every player page) also takes a page's address as a side, or
``:<choice>`` for another output of side a, and redirects to that form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from flask import Blueprint, redirect, render_template, request
from werkzeug.wrappers import Response

from ...domain.compare import metric_rows, output_timing, pretty_arguments, tool_pairs
from ...domain.dialects.labels import Labels
from ...domain.requests import request_view
from ...domain.requests.diff import diff_requests
from ...domain.requests.model import RequestView
from ...domain.summary import dialect_of, summarize
from ...domain.textdiff import diff_texts
from ...services.sources import Loaded
from ...storage.rooms import DEMO_PREFIX
from ..context import services
from ..errors import BadRequest, NotFound, StreamscopeError
from .rooms import Conflict

compare = Blueprint("compare", __name__)
SIDE = re.compile(
    r"^(?P<source>demos/[\w.-]+|[\w-]+)(?::(?:(?P<stream>\d{1,6})\.)?(?P<choice>\d{1,6}))?$"
)


@dataclass(frozen=True)
class SideRef:
    source: str  # a capture id, or demos/<name>
    stream: int = 0
    choice: int = 0

    @property
    def spec(self) -> str:
        if self.stream:
            return f"{self.source}:{self.stream}.{self.choice}"
        return f"{self.source}:{self.choice}" if self.choice else self.source

    @property
    def open(self) -> dict[str, str]:
        """What the page sends to play it (docs/protocol.md ``open``)."""
        if self.source.startswith(DEMO_PREFIX):
            return {"demo": self.source.removeprefix(DEMO_PREFIX)}
        return {"capture": self.source}


def parse_side(text: str) -> SideRef:
    match = SIDE.match(text)
    if match is None:
        raise BadRequest(
            f"{text!r} is not a side to compare: give a capture id or demos/<name>, optionally "
            "with :<choice> or :<stream>.<choice>",
            code="bad_side",
        )
    return SideRef(match["source"], int(match["stream"] or 0), int(match["choice"] or 0))


def split_sides(path: str) -> tuple[SideRef, SideRef]:
    """The two sides of ``/compare/<path>``: ``demos/<name>`` takes two segments, an id one."""
    parts = path.strip("/").split("/")
    sides: list[str] = []
    while parts:
        head = parts.pop(0)
        sides.append(f"{head}/{parts.pop(0)}" if head == "demos" and parts else head)
    if len(sides) != 2:
        raise BadRequest(
            "compare two sides: /compare/<side>/<side> (docs/teaching.md)", code="bad_side"
        )
    return parse_side(sides[0]), parse_side(sides[1])


def side_from_input(text: str, other: SideRef | None) -> SideRef:
    """A side as typed in the "Compare with…" form: a side, a page's address, or ``:<choice>``
    (another output of ``other``)."""
    text = text.strip()
    if text.startswith(":") and other is not None:
        return parse_side(other.source + text)
    if "://" in text or text.startswith("/"):
        path = urlsplit(text).path.strip("/")
        for prefix, kind in (("demos/", "demos/"), ("c/", ""), ("embed/", ""), ("r/", "room:")):
            if path.startswith(prefix):
                rest = path.removeprefix(prefix)
                if kind == "room:":
                    record = services().rooms.get(rest)
                    if record is None:
                        raise NotFound("no such room", code="no_room")
                    return parse_side(record.source)
                return parse_side(kind + rest)
        raise BadRequest(f"{text!r} is not the address of a capture or a demo", code="bad_side")
    return parse_side(text)


@dataclass(frozen=True)
class Side:
    ref: SideRef
    title: str
    summary: dict[str, Any]
    output: dict[str, Any]
    timing: dict[str, Any]
    labels: Labels
    request: RequestView | None = None  # the stream's request, where the capture has it

    @property
    def output_name(self) -> str:
        """As the player and ``inspect`` number them: streams from 1, outputs by the dialect's
        own name and index ("Stream 1 / Choice 0", "Stream 2 / Answer")."""
        output = (
            f"{self.labels.output} {self.ref.choice}"
            if self.labels.numbered
            else self.labels.output
        )
        return f"Stream {self.ref.stream + 1} / {output}"


def load_side(ref: SideRef) -> Side:
    sources = services().sources
    run = None if ref.source.startswith(DEMO_PREFIX) else services().live.registry.get(ref.source)
    if run is not None and not run.finished:
        raise Conflict(
            "this live run is still streaming: compare its recording once it has ended",
            code="still_recording",
        )
    loaded: Loaded = sources.open(ref.open)
    streams = loaded.capture.streams
    if ref.stream >= len(streams):
        raise NotFound(
            f"{ref.source} has {len(streams)} stream(s): no stream {ref.stream}", code="no_stream"
        )
    summary = summarize(streams[ref.stream], services().settings.stall_ms)
    outputs = {o["index"]: o for o in summary["normalized"]["outputs"]}
    output = outputs.get(ref.choice)
    if output is None and (outputs or ref.choice):
        have = ", ".join(map(str, sorted(outputs))) or "none"
        raise NotFound(
            f"stream {ref.stream} of {ref.source} has no output {ref.choice} (outputs: {have})",
            code="no_choice",
        )
    empty = {"index": 0, "text": "", "reasoning": "", "tool_calls": [], "stop_reason": None}
    timing = output_timing(streams[ref.stream].events, ref.choice)
    labels = dialect_of(streams[ref.stream]).labels
    request = request_view(streams[ref.stream])
    return Side(ref, loaded.title, summary, output or empty, timing, labels, request)


def load_named(ref: SideRef, name: str) -> Side:
    """A side, or the error its loading gave with the side it is about (A or B) said first."""
    try:
        return load_side(ref)
    except StreamscopeError as exc:
        raise type(exc)(f"side {name}: {exc.message}", code=exc.code, side=name.lower()) from None


@compare.get("/compare")
def form() -> Response:
    a, b = request.args.get("a", ""), request.args.get("b", "")
    if not a.strip() or not b.strip():
        raise BadRequest("give both sides: /compare?a=<side>&b=<side>", code="bad_side")
    first = side_from_input(a, None)
    second = side_from_input(b, first)
    return redirect(
        f"/compare/{quote(first.spec, safe='/:')}/{quote(second.spec, safe='/:')}", code=302
    )


@compare.get("/compare/<path:sides>")
def page(sides: str) -> str:
    ref_a, ref_b = split_sides(sides)
    a, b = load_named(ref_a, "A"), load_named(ref_b, "B")
    align = "first-token" if request.args.get("align") == "first-token" else "start"
    diffs = [("answer", diff_texts(a.output["text"], b.output["text"]))]
    if a.output["reasoning"] or b.output["reasoning"]:
        diffs.append(("reasoning", diff_texts(a.output["reasoning"], b.output["reasoning"])))
    return render_template(
        "compare.html",
        a=a,
        b=b,
        align=align,
        diffs=diffs,
        rows=metric_rows(a.summary, b.summary, a.output, b.output, (a.timing, b.timing)),
        tools=tool_pairs(a.output["tool_calls"], b.output["tool_calls"]),
        request=diff_requests(a.request, b.request),
        pretty=pretty_arguments,
        title=f"{a.title} vs {b.title}",
    )
