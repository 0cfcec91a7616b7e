"""Coverage-guided fuzzing of the capture readers, and of the scrubbers, with atheris (libFuzzer).

    pip install atheris                                 # 3.0.0: a binary wheel for CPython 3.11
    python scripts/fuzz_readers.py --seconds 600          # fuzz for 10 minutes
    python scripts/fuzz_readers.py --target scrub --seconds 600   # the scrubbers' invariant
    python scripts/fuzz_readers.py --seconds 600 --mutator bytes   # libFuzzer's mutations only
    python scripts/fuzz_readers.py --seconds 600 -- -jobs=2 -workers=2   # extra libFuzzer flags
    python scripts/fuzz_readers.py --replay FILE...       # run inputs, print what each finds
    python scripts/fuzz_readers.py --minimize FILE        # shrink an input, keeping its finding
    python scripts/fuzz_readers.py --seed-only            # (re)build the seed corpus and stop

One input = one format byte + the capture bytes. The first byte picks the format:
``None`` (detection) or one of ``app.captures.FORMAT_NAMES``, by ``byte % 8``. The rest goes
to ``read_capture(data, fmt, Limits(max_decompressed=1 MiB, max_line=64 KiB,
max_events=20_000))``; then, per stream, ``summarize`` and every event's ``to_json`` are
serialised with orjson and every ``raw_text(i)`` is taken; then ``to_jsonl``, ``to_sse`` and
``to_timed`` run on the capture.

A finding is any exception, or a broken invariant (checked last, so that an exception in a
step does not hide one in another; every step runs even when an earlier one raised):

* ``seq``: an event's ``seq`` equals its position in ``stream.events``;
* ``raw_ref``: an event's ``raw`` is -1 or a valid index into ``stream.raw``;
* ``raw_index``: a raw event's ``index`` equals its position in ``stream.raw``;
* ``raw_span``: a raw event has ``byte <= end``;
* ``raw_order``: raw events' ``byte`` offsets never decrease within a stream.

By default the harness *collects* findings and keeps fuzzing: each distinct finding
(exception type + normalised message + innermost ``app/`` frame, or the invariant's name) is
written once to ``bench/out/fuzz-crashes/finding-<sig>`` (the input, format byte first) with
``finding-<sig>.txt`` (signature, format, traceback), and listed in ``findings.jsonl``.
``--strict`` lets exceptions escape instead (classic libFuzzer crash, artifact written by
libFuzzer to the same folder). The corpus lives in ``bench/out/fuzz-corpus/`` (git-ignored),
seeded from ``tests/captures/``, the demos and a few built gzip/HAR/timed/JSONL/JSON/curl
inputs; ``scripts/fuzz_readers.dict`` is passed as the libFuzzer dictionary. Inputs are capped
at 8 KiB by default (``--max-len``): Python runs ~200 inputs/s at that size, ~50/s at 128 KiB.

``--target scrub`` runs each input through the path uploads take (``tests/scrub_views.py``:
the ``Importer`` with an in-memory store, then every download and page view of what was
stored) and checks the scrubbers' invariant (docs/security.md, "Secrets in uploads"): an
upload is refused with a clear error, or no key-shaped string is left in any view
(``key:<view>``) and scrubbing the stored bytes again changes nothing (``rescrub``). Its
corpus and findings are ``bench/out/fuzz-scrub-corpus/`` and ``bench/out/fuzz-scrub-crashes/``;
the seeds add tests/secret_har.py's 40-secret HAR (and its strict-JSON-breaking forms) and
curl and timed captures with planted secrets.

The default ``--mutator json`` makes half the mutations structure-aware (see
``custom_mutator``): orjson does the JSON parsing in C, which atheris cannot instrument, so
byte-level mutations alone almost never turn a valid chunk into a valid chunk holding a value
of another type, which is where most bugs were.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import random
import re
import sys
import time
import traceback
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import atheris  # noqa: E402
import orjson  # noqa: E402

with atheris.instrument_imports(include=["app"]):
    from app.captures import FORMAT_NAMES, Limits, read_capture
    from app.captures.export import to_jsonl, to_sse, to_timed
    from app.captures.scrubbing import scrub  # noqa: F401 (instrumented here, used by scrub_views)
    from app.domain.summary import summarize
    from app.services.uploads import Importer

from tests.scrub_views import memory_importer, scrub_findings  # noqa: E402
from tests.secret_har import secret_har  # noqa: E402

OUT = ROOT / "bench" / "out"
CORPUS = OUT / "fuzz-corpus"
CRASHES = OUT / "fuzz-crashes"
DICT = HERE / "fuzz_readers.dict"
LIMITS = Limits(max_decompressed=1024 * 1024, max_line=64 * 1024, max_events=20_000)
CHOICES: tuple[str | None, ...] = (None, *FORMAT_NAMES)
SLOW_SECONDS = 2.0


class InvariantViolation(AssertionError):
    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"{name}: {detail}")
        self.name = name


# ---------------------------------------------------------------------- one input
def split_input(data: bytes) -> tuple[str | None, bytes]:
    if not data:
        return None, b""
    return CHOICES[data[0] % len(CHOICES)], data[1:]


def format_byte(fmt: str | None) -> bytes:
    return bytes([CHOICES.index(fmt)])


def check_invariants(stream) -> None:
    n_raw = len(stream.raw)
    for pos, event in enumerate(stream.events):
        if event.seq != pos:
            raise InvariantViolation(
                "seq", f"stream {stream.index}: event {pos} ({event.kind}) has seq {event.seq}"
            )
        if event.raw != -1 and not (0 <= event.raw < n_raw):
            raise InvariantViolation(
                "raw_ref",
                f"stream {stream.index}: event {pos} ({event.kind}) has raw {event.raw}, "
                f"{n_raw} raw events",
            )
    prev = None
    for pos, raw in enumerate(stream.raw):
        if raw.index != pos:
            raise InvariantViolation(
                "raw_index", f"stream {stream.index}: raw {pos} has index {raw.index}"
            )
        if raw.byte > raw.end:
            raise InvariantViolation(
                "raw_span",
                f"stream {stream.index}: raw {pos} ({raw.kind}) byte {raw.byte} > end {raw.end}",
            )
        if prev is not None and raw.byte < prev.byte:
            raise InvariantViolation(
                "raw_order",
                f"stream {stream.index}: raw {pos} ({raw.kind}) byte {raw.byte} < raw {pos - 1} "
                f"({prev.kind}) byte {prev.byte}",
            )
        prev = raw


def exercise(data: bytes, fmt: str | None) -> list[Exception]:
    """Everything a finding can come from. Each step runs on its own, so one finding does not
    hide another in a later step; the invariants are checked last. Returns the exceptions."""
    found: list[Exception] = []

    def step(name: str, fn, *args) -> None:
        try:
            fn(*args)
        except Exception as exc:  # every exception is a finding
            exc.fuzz_step = name  # type: ignore[attr-defined]
            found.append(exc)

    try:
        capture = read_capture(data, fmt, LIMITS)
    except Exception as exc:
        return [exc]
    for stream in capture.streams:
        step("summary", lambda s: orjson.dumps(summarize(s)), stream)
        step("events_json", lambda s: orjson.dumps([e.to_json() for e in s.events]), stream)
        step("raw_text", lambda s: [s.raw_text(i) for i in range(len(s.raw))], stream)
    step("to_jsonl", to_jsonl, capture)
    step("to_sse", to_sse, capture)
    step("to_timed", to_timed, capture, data)
    for stream in capture.streams:
        step("invariants", check_invariants, stream)
    return found


_IMPORTER: list[Importer] = []


def exercise_scrub(data: bytes, fmt: str | None) -> list[Exception]:
    """The scrubbers' invariant, through the upload path (``tests/scrub_views.py``)."""
    if not _IMPORTER:
        _IMPORTER.append(memory_importer(LIMITS))
    try:
        found = scrub_findings(_IMPORTER[0], data, fmt)
    except Exception as exc:  # every exception is a finding
        return [exc]
    return [InvariantViolation(name, f"format {fmt}: {name}") for name in found]


TARGETS = {"readers": exercise, "scrub": exercise_scrub}
_target = [exercise]  # the one main() picked


# ---------------------------------------------------------------------- signatures
def _normalise(message: str) -> str:
    message = re.sub(r"'[^']*'", "'_'", message)
    message = re.sub(r"\d+", "N", message)
    return message[:60]


def signature(exc: BaseException) -> str:
    if isinstance(exc, InvariantViolation):
        return f"invariant:{exc.name}"
    frames = traceback.extract_tb(exc.__traceback__)
    app_dir = str(ROOT / "app")
    where = next((f for f in reversed(frames) if f.filename.startswith(app_dir)), None)
    if where is not None:
        place = f"{os.path.relpath(where.filename, ROOT)}:{where.name}:{where.lineno}"
    else:  # raised outside app/ (orjson.dumps of what app/ returned): name the step
        place = f"harness:{getattr(exc, 'fuzz_step', 'read_capture')}"
    return f"{type(exc).__name__}({_normalise(str(exc))})@{place}"


def run_one(raw_input: bytes) -> list[tuple[str, str]]:
    """(signature, traceback) of each finding this input gives."""
    fmt, data = split_input(raw_input)
    return [
        (signature(exc), "".join(traceback.format_exception(exc))) for exc in _target[0](data, fmt)
    ]


# ---------------------------------------------------------------------- fuzzing
class Collector:
    def __init__(self, crashes: Path, strict: bool) -> None:
        self.crashes = crashes
        self.strict = strict
        self.seen: dict[str, int] = {}
        self.slow_seen: set[str] = set()

    def __call__(self, raw_input: bytes) -> None:
        fmt, data = split_input(raw_input)
        start = time.perf_counter()
        for exc in _target[0](data, fmt):
            if self.strict:
                raise exc
            self.record(raw_input, fmt, exc)
        elapsed = time.perf_counter() - start
        if elapsed > SLOW_SECONDS:
            self.slow(raw_input, fmt, elapsed)

    def record(self, raw_input: bytes, fmt: str | None, exc: Exception) -> None:
        sig = signature(exc)
        count = self.seen.get(sig, 0)
        self.seen[sig] = count + 1
        if count:
            return
        digest = hashlib.sha1(sig.encode()).hexdigest()[:10]
        path = self.crashes / f"finding-{digest}"
        path.write_bytes(raw_input)
        tb = "".join(traceback.format_exception(exc))
        (self.crashes / f"finding-{digest}.txt").write_text(
            f"signature: {sig}\nformat: {fmt}\ninput: {path.name} ({len(raw_input)} bytes)\n\n{tb}"
        )
        with (self.crashes / "findings.jsonl").open("a") as log:
            log.write(
                json.dumps({"sig": sig, "file": path.name, "format": fmt, "size": len(raw_input)})
                + "\n"
            )
        print(f"\n=== NEW FINDING {sig}\n    -> {path}\n{tb}", file=sys.stderr, flush=True)

    def slow(self, raw_input: bytes, fmt: str | None, elapsed: float) -> None:
        digest = hashlib.sha1(raw_input).hexdigest()[:10]
        if digest in self.slow_seen or len(self.slow_seen) >= 20:
            return
        self.slow_seen.add(digest)
        (self.crashes / f"slow-{digest}").write_bytes(raw_input)
        print(
            f"\n=== SLOW INPUT {elapsed:.2f}s format={fmt} size={len(raw_input)} -> slow-{digest}",
            file=sys.stderr,
            flush=True,
        )


# ---------------------------------------------------------------------- structure-aware mutator
# The readers' type checks run in Python, but JSON parsing is orjson (C, not instrumented), so
# byte mutations rarely turn a well-formed chunk into a well-formed chunk with a value of another
# type. Half of the mutations therefore parse one JSON value in the input (a ``data:`` line, a
# JSON line, a timed record, a whole HAR/JSON document, or one found inside a timed record's or
# HAR entry's text), change one node or add one key, and write it back; the other half are
# libFuzzer's own byte mutations.
KEYS = (
    "id", "object", "created", "model", "choices", "index", "delta", "message", "content",
    "refusal", "reasoning_content", "reasoning", "tool_calls", "function", "name", "arguments",
    "type", "thinking", "text", "logprobs", "top_logprobs", "finish_reason", "usage",
    "completion_tokens", "x_groq", "error", "code", "moderation", "prompt_filter_results",
    "reasoning_details", "service_tier", "system_fingerprint", "t", "base64", "format",
    "version", "timing", "reason", "status", "content_type", "source", "request", "response",
    "url", "method", "headers", "value", "mimeType", "encoding", "postData", "log", "entries",
    "cookies", "params", "redirectURL", "api_key", "apiKey", "password", "Authorization",
    "x-api-key", "client_secret",
)  # fmt: skip
RAW_VALUES = (
    b"NaN", b"Infinity", b"-Infinity", b"1" + b"0" * 400, b"123456789012345678901234567",
    b"18446744073709551616", b"-9223372036854775809", b"5e-324", b"1e-320", b"1.7e308",
    b"1e400", b"-0.0", b"0", b"-1", b"1", b"2", b"1.5", b"true", b"false", b"null", b'""',
    b'"x"', b'"\\ud800"', b'"\\udc00x"', b'"\\u0000"', b'"data: [DONE]"', b"[]", b"{}", b"[1]",
    b'{"a":1}', b'[{"index":[1]}]', b'[{"index":{}}]', b'[{"index":0,"text":"a"}]',
    b'"http://["', b'"http://[x]/"', b'"\xff"',
    b"[" * 300 + b"]" * 300, b"[" * 1000 + b"]" * 1000, b'{"a":' * 300 + b"1" + b"}" * 300,
    b'"sk-proj-0123456789abcdefXYZ"', b'"\\u0073k-0123456789abcdef0123"',
    b'"https:\\/\\/u:p@h\\/?api-key=v"', b'"Bearer abcdefghijklmnop"', b'"a\\nCookie: s=1"',
    b'"eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"',
)  # fmt: skip
_MARK = "\x00RAW%d\x00"
_MARK_RE = re.compile(rb'"\\u0000RAW(\d+)\\u0000"')
_DATA_PREFIX = re.compile(rb"^\s*(?:data\s*:)?\s*")


def _json_spans(text: bytes) -> list[tuple[int, int]]:
    """Byte ranges in ``text`` that hold one JSON object or array: whole lines (after an
    optional ``data:``) and, when it parses, the whole text."""
    spans = []
    stripped = text.strip()
    if stripped[:1] in (b"{", b"[") and b"\n" in stripped:
        start = text.find(stripped[:1])
        spans.append((start, start + len(stripped)))
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip(b"\r\n")
        prefix = _DATA_PREFIX.match(body)  # always matches (everything in it is optional)
        head = prefix.end() if prefix else 0
        if body[head : head + 1] in (b"{", b"["):
            spans.append((pos + head, pos + len(body)))
        pos += len(line)
    return spans


def _nodes(value):
    """Every (path, node) of a JSON value, without recursion (values may be 1,000 deep)."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        out.append((path, node))
        if isinstance(node, dict):
            stack.extend(((*path, key), item) for key, item in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), item) for i, item in enumerate(node))
    return out


def _set(root, path, new):
    if not path:
        return new
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return root


def _literal(raws: list[bytes], match: re.Match) -> bytes:
    return raws[int(match.group(1))]


def _mutate_json(text: bytes, rng, depth: int = 0) -> bytes | None:
    spans = _json_spans(text)
    rng.shuffle(spans)
    raws: list[bytes] = []  # literals orjson cannot write, put in after dumping

    def raw(literal: bytes) -> str:
        raws.append(literal)
        return _MARK % (len(raws) - 1)

    for start, end in spans[:4]:
        try:
            value = orjson.loads(text[start:end])
        except orjson.JSONDecodeError:
            continue
        raws.clear()

        nodes = _nodes(value)
        path, node = rng.choice(nodes)
        action = rng.random()
        if (
            isinstance(node, str)
            and depth == 0
            and (b"data" in node.encode() or rng.random() < 0.3)
        ):
            inner = _mutate_json(node.encode(), rng, depth + 1)  # SSE inside a timed/HAR text
            if inner is None:
                continue
            value = _set(value, path, inner.decode("utf-8", "replace"))
        elif action < 0.45:
            value = _set(value, path, raw(rng.choice(RAW_VALUES)))
        elif action < 0.75:
            dicts = [(p, n) for p, n in nodes if isinstance(n, dict)]
            if not dicts:
                continue
            path, node = rng.choice(dicts)
            node[rng.choice(KEYS)] = (
                raw(rng.choice(RAW_VALUES))
                if rng.random() < 0.7
                else rng.choice([n for _, n in nodes])
            )
        elif action < 0.85 and path:
            parent = value
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
        else:  # the same value twice in a row: repeated chunks, records, entries
            line_end = text.find(b"\n", end)
            line_end = len(text) if line_end < 0 else line_end + 1
            line_start = text.rfind(b"\n", 0, start) + 1
            gap = b"\n" if rng.random() < 0.5 else b""
            return text[:line_end] + gap + text[line_start:line_end] + text[line_end:]
        try:
            out = orjson.dumps(value)
        except TypeError:
            continue
        out = _MARK_RE.sub(lambda m: _literal(raws, m), out)
        out = _MARK_RE.sub(b"", out)
        return text[:start] + out + text[end:]
    return None


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    try:
        out = _custom(data, max_size, rng)
    except Exception:  # a mutator bug must not stop the run: fall back to libFuzzer's
        out = None
    return out if out is not None else atheris.Mutate(data, max_size)


def _custom(data: bytes, max_size: int, rng) -> bytes | None:
    if data and rng.random() < 0.5:
        body = data[1:]
        compressed = body[:2] == b"\x1f\x8b"
        if compressed:
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError, zlib.error):
                compressed, body = False, data[1:]
        mutated = _mutate_json(body, rng)
        if mutated is not None:
            if compressed:
                mutated = gzip.compress(mutated, mtime=0)
            out = data[:1] + mutated
            if len(out) <= max_size:
                return out
    return None


# ---------------------------------------------------------------------- seeds
def _chunk(content=None, *, finish=None, tools=None, usage=None, logprobs=None, index=0):
    delta: dict = {}
    if content is not None:
        delta["content"] = content
    if tools is not None:
        delta["tool_calls"] = tools
    choice: dict = {"index": index, "delta": delta, "finish_reason": finish}
    if logprobs is not None:
        choice["logprobs"] = {"content": logprobs}
    out: dict = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [choice],
    }
    if usage is not None:
        out["usage"] = usage
    return out


def _sample_chunks() -> list[dict]:
    tool = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}]
    args = [{"index": 0, "function": {"arguments": '{"a": 1}'}}]
    lp = [{"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}]
    return [
        _chunk("Hi", logprobs=lp),
        _chunk(" there"),
        _chunk(tools=tool),
        _chunk(tools=args),
        _chunk(finish="tool_calls"),
        {"id": "chatcmpl-1", "choices": [], "usage": {"completion_tokens": 3}},
    ]


def _sse(chunks: list[dict], done: bool = True) -> bytes:
    out = b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks)
    return out + (b"data: [DONE]\n\n" if done else b"")


def _timed(reads: list[tuple[float, bytes]], *, timing_none=False, end=True, ctype=None):
    header = {
        "type": "header",
        "format": "streamscope.timed",
        "version": 1,
        "created": "2024-01-01T00:00:00Z",
        "source": {"url": "https://example.invalid/v1/chat/completions"},
        "request": {"model": "m"},
        "response": {"status": 200, "content_type": ctype or "text/event-stream"},
    }
    if timing_none:
        header["timing"] = "none"
    lines = [orjson.dumps(header)]
    lines.append(
        orjson.dumps(
            {
                "type": "response",
                "t": 1.0,
                "status": 200,
                "content_type": ctype or "text/event-stream",
            }
        )
    )
    for i, (t, data) in enumerate(reads):
        if i % 3 == 2:
            lines.append(
                orjson.dumps({"type": "read", "t": t, "base64": base64.b64encode(data).decode()})
            )
        else:
            lines.append(
                orjson.dumps({"type": "read", "t": t, "text": data.decode("utf-8", "replace")})
            )
    if end:
        lines.append(orjson.dumps({"type": "end", "t": 999.5, "reason": "done"}))
    return b"\n".join(lines) + b"\n"


def built_seeds() -> dict[str, bytes]:
    chunks = _sample_chunks()
    sse = _sse(chunks)
    small_sse = (ROOT / "tests/captures/mistral-small-tool-call-no-index.sse").read_bytes()
    pieces = [sse[i : i + 37] for i in range(0, len(sse), 37)]
    reads = [(10.0 + 7.5 * i, p) for i, p in enumerate(pieces)]
    seeds: dict[str, bytes] = {}
    # gzip
    seeds["gzip-sse"] = format_byte(None) + gzip.compress(sse)
    seeds["gzip-two-members"] = (
        format_byte(None) + gzip.compress(sse[:100]) + gzip.compress(sse[100:])
    )
    seeds["gzip-truncated"] = format_byte(None) + gzip.compress(small_sse)[:-20]
    seeds["gzip-timed"] = format_byte(None) + gzip.compress(_timed(reads))
    seeds["gzip-forced-jsonl"] = format_byte("jsonl") + gzip.compress(
        b"\n".join(orjson.dumps(c) for c in chunks) + b"\n"
    )
    # HAR
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "entries": [
                {
                    "request": {
                        "method": "POST",
                        "url": "https://user:pw@api.example.invalid/v1/chat/completions?key=x#f",
                        "headers": [{"name": "content-type", "value": "application/json"}],
                        "postData": {
                            "mimeType": "application/json",
                            "text": '{"model":"m","stream":true}',
                        },
                    },
                    "response": {
                        "status": 200,
                        "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                        "content": {
                            "size": len(sse),
                            "mimeType": "text/event-stream",
                            "text": sse.decode(),
                        },
                    },
                },
                {
                    "request": {"method": "POST", "url": "https://api.example.invalid/v1/x"},
                    "response": {
                        "status": 200,
                        "headers": [
                            {"name": "content-type", "value": "text/event-stream; charset=utf-8"}
                        ],
                        "content": {
                            "encoding": "base64",
                            "text": base64.b64encode(small_sse).decode(),
                        },
                    },
                },
                {
                    "request": {"method": "GET", "url": "https://example.invalid/"},
                    "response": {
                        "status": 200,
                        "content": {"mimeType": "text/html", "text": "<p>hi</p>"},
                    },
                },
            ],
        }
    }
    seeds["har"] = format_byte(None) + orjson.dumps(har, option=orjson.OPT_INDENT_2)
    seeds["har-compact"] = format_byte("har") + orjson.dumps(har)
    # timed
    seeds["timed"] = format_byte(None) + _timed(reads)
    seeds["timed-no-end"] = format_byte(None) + _timed(reads[:5], end=False)
    seeds["timed-timing-none"] = format_byte(None) + _timed(
        [(0.0, sse), (0.0, sse)], timing_none=True
    )
    seeds["timed-json-body"] = format_byte("timed") + _timed(
        [(5.0, orjson.dumps({"error": {"message": "rate limited", "code": 429}}))],
        ctype="application/json",
    )
    seeds["timed-html-body"] = format_byte("timed") + _timed(
        [(5.0, b"<html>bad gateway</html>")], ctype="text/html"
    )
    # JSON Lines, JSON array, lone object
    jsonl = (
        b"\n".join(orjson.dumps(c) for c in chunks)
        + b"\n[DONE]\n"
        + orjson.dumps(chunks[0])
        + b"\n"
    )
    seeds["jsonl"] = format_byte(None) + jsonl
    seeds["jsonl-data-prefix"] = format_byte("jsonl") + b"\r\n".join(
        b"data: " + orjson.dumps(c) for c in chunks
    )
    seeds["json-array"] = format_byte(None) + orjson.dumps(chunks, option=orjson.OPT_INDENT_2)
    seeds["json-object"] = format_byte(None) + orjson.dumps(chunks[2], option=orjson.OPT_INDENT_2)
    seeds["json-unclosed"] = format_byte("json") + orjson.dumps(chunks)[:-30]
    # curl
    seeds["curl-100-continue"] = (
        format_byte(None)
        + b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
        + sse
    )
    seeds["curl-json-429"] = (
        format_byte(None)
        + b"HTTP/2 429\r\ncontent-type: application/json\r\n\r\n"
        + b'{"error":{"message":"slow down","type":"rate_limit","code":"429"}}'
    )
    seeds["curl-redirect"] = (
        format_byte("curl")
        + b"HTTP/1.1 301 Moved\nlocation: /x\n\nHTTP/1.1 200 OK\ncontent-type: text/event-stream\n\n"
        + small_sse
    )
    # SSE oddities
    seeds["sse-odd"] = format_byte("sse") + (
        b"\xef\xbb\xbf: keep-alive\r\nevent: message\r\nid: 7\r\nretry: 100\r\n data : "
        + orjson.dumps(chunks[0])
        + b'\r\n\r\ndata: {"choices":[{"delta":{"content":"a"}}]}\n'
        + b'data: {"choices":[{"delta":{"content":"b"}}]}\n\n'
        + b'event: error\ndata: {"error":{"message":"boom","code":500}}\n\n'
        + b'data: {"x": NaN, "s": "\\ud800"}\n\ndata: [DONE]\n\ndata: {"choices":[]}'
    )
    seeds["docs-inline"] = format_byte("docs") + (
        b'Prose before.\n\ndata: {\n  "id": "x",\n  "choices": [{"index": 0, "delta": {"content": "{"}}]\n}\n\n...\n\n'
        + b'data: [DONE]\n\nMore prose\ndata: {"choices": [\n'
    )
    # planted secrets (the scrub target's invariant needs something to find)
    key = "sk-proj-SEEDkey0123456789abcdef"
    seeds["secret-har"] = format_byte(None) + secret_har()
    seeds["secret-har-nan"] = format_byte(None) + secret_har("nan")
    seeds["secret-har-surrogate"] = format_byte("har") + secret_har("lone-surrogate")
    escaped = (  # JSON escapes that hide the key and the URL from a byte search
        _sse([_chunk(f"key {key} at https://u:pw@h/?api-key=seed")])
        .replace(b"/", b"\\/")
        .replace(b"SEEDkey", b"SEED\\u006bey")
    )
    seeds["secret-curl"] = format_byte(None) + (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nSet-Cookie: s=seedcookie;\r\n"
        b" more=1\r\nx-api-key: seedapikey\r\nLocation: https://u:p@h/?code=seedcode\r\n\r\n"
        + escaped
    )
    secret_sse = _sse([_chunk(f"my {key} ok"), _chunk("x\nx-api-key: seed\nAIza" + "S" * 35)])
    cut = secret_sse.index(b"SEEDkey") + 3
    seeds["secret-timed"] = format_byte(None) + _timed(
        [(1.0, secret_sse[:cut]), (2.0, secret_sse[cut:])]
    ).replace(b"example.invalid/v1", b"user:pw@example.invalid/v1?key=seed&session=s")
    seeds["secret-jsonl-escaped"] = format_byte(None) + escaped.replace(b"data: ", b"")
    # the small capture in every forced format
    for fmt in FORMAT_NAMES:
        seeds[f"forced-{fmt}"] = format_byte(fmt) + small_sse
    return seeds


def build_corpus(corpus: Path, max_len: int) -> int:
    corpus.mkdir(parents=True, exist_ok=True)
    count = 0
    sources = [
        *sorted((ROOT / "tests/captures").glob("*.sse")),
        *sorted((ROOT / "tests/captures/derived").glob("*")),
        *sorted((ROOT / "tests/captures").glob("*.txt")),
        *sorted((ROOT / "app/demos").glob("*.timed.jsonl")),
        ROOT / "app/demos/seed-docs.txt",
    ]
    for path in sources:
        data = path.read_bytes()
        if len(data) + 1 > max_len:  # keep whole lines
            data = data[: data.rfind(b"\n", 0, max_len - 1) + 1]
        (corpus / f"seed-{path.name}").write_bytes(format_byte(None) + data)
        count += 1
    for name, data in built_seeds().items():
        (corpus / f"seed-built-{name}").write_bytes(data[:max_len])
        count += 1
    return count


# ---------------------------------------------------------------------- minimising
def minimise(raw_input: bytes, sig: str, budget: float = 120.0) -> bytes:
    """Delta debugging on bytes (then on lines' characters), keeping the format byte and the
    finding's signature."""
    deadline = time.monotonic() + budget

    def same(candidate: bytes) -> bool:
        return any(found == sig for found, _ in run_one(candidate))

    head, best = raw_input[:1], raw_input[1:]
    chunk = max(len(best) // 2, 1)
    while chunk >= 1 and time.monotonic() < deadline:
        progress = False
        start = 0
        while start < len(best) and time.monotonic() < deadline:
            candidate = best[:start] + best[start + chunk :]
            if same(head + candidate):
                best = candidate
                progress = True
            else:
                start += chunk
        if not progress:
            chunk //= 2
    # then try simplifying bytes to one simple character, one position at a time
    for i in range(len(best)):
        if time.monotonic() > deadline:
            break
        for repl in (b"a", b"0", b" "):
            if best[i : i + 1] == repl:
                break
            candidate = best[:i] + repl + best[i + 1 :]
            if same(head + candidate):
                best = candidate
                break
    return head + best


# ---------------------------------------------------------------------- main
def main() -> None:
    argv = sys.argv[1:]
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=600, help="libFuzzer -max_total_time")
    parser.add_argument("--max-len", type=int, default=8 * 1024, help="libFuzzer -max_len")
    parser.add_argument("--timeout", type=int, default=20, help="libFuzzer -timeout (seconds)")
    parser.add_argument(
        "--target",
        choices=sorted(TARGETS),
        default="readers",
        help="readers: reading never raises, the timeline's invariants hold (default); "
        "scrub: no secret survives an upload",
    )
    parser.add_argument("--corpus", type=Path, default=None, help="default: bench/out/...")
    parser.add_argument("--crashes", type=Path, default=None, help="default: bench/out/...")
    parser.add_argument(
        "--mutator",
        choices=("json", "bytes"),
        default="json",
        help="json: half structure-aware JSON mutations, half libFuzzer's (default); bytes: libFuzzer's only",
    )
    parser.add_argument("--strict", action="store_true", help="let exceptions crash libFuzzer")
    parser.add_argument("--reseed", action="store_true", help="rewrite the seed files")
    parser.add_argument("--seed-only", action="store_true")
    parser.add_argument("--replay", nargs="+", type=Path, metavar="FILE")
    parser.add_argument("--minimize", type=Path, metavar="FILE")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds for --minimize")
    parser.add_argument("--signature", help="with --minimize: the finding to keep (default: first)")
    args = parser.parse_args(argv)
    _target[0] = TARGETS[args.target]
    scrubbing = args.target == "scrub"
    args.corpus = args.corpus or (OUT / "fuzz-scrub-corpus" if scrubbing else CORPUS)
    args.crashes = args.crashes or (OUT / "fuzz-scrub-crashes" if scrubbing else CRASHES)
    args.crashes.mkdir(parents=True, exist_ok=True)

    if args.replay:
        for path in args.replay:
            raw_input = path.read_bytes()
            found = run_one(raw_input)
            print(f"{path} (format {split_input(raw_input)[0]}): {len(found)} finding(s)")
            for sig, tb in found:
                print(f"--- {sig}\n{tb}")
        return
    if args.minimize:
        raw_input = args.minimize.read_bytes()
        found = run_one(raw_input)
        if not found:
            sys.exit(f"{args.minimize}: no finding to keep")
        sig = args.signature or found[0][0]
        small = minimise(raw_input, sig, args.budget)
        out = args.crashes / f"{args.minimize.name}.min"
        out.write_bytes(small)
        print(
            f"signature: {sig}\nformat: {split_input(small)[0]}\n"
            f"{len(raw_input)} -> {len(small)} bytes: {out}\n{small[1:]!r}"
        )
        return

    if args.reseed or not any(args.corpus.glob("seed-*")):
        print(f"seeded {build_corpus(args.corpus, args.max_len)} inputs in {args.corpus}")
    if args.seed_only:
        return
    libfuzzer = [
        sys.argv[0],
        str(args.corpus),
        f"-max_total_time={args.seconds}",
        f"-max_len={args.max_len}",
        f"-timeout={args.timeout}",
        f"-artifact_prefix={args.crashes}/",
        f"-dict={DICT}",
        "-print_final_stats=1",
        "-rss_limit_mb=4096",
        *extra,
    ]
    mutator = custom_mutator if args.mutator == "json" else None
    atheris.Setup(libfuzzer, Collector(args.crashes, args.strict), custom_mutator=mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
