"""Build the demo captures bundled in ``app/demos/`` (and check them).

    python scripts/make_demos.py            # write app/demos/*, index.json, SOURCES.md
    python scripts/make_demos.py --check    # regenerate in memory and verify what is on disk

Every demo is reproduced byte for byte from its source: the real captures in ``tests/captures/``
keep their stream bytes unchanged and get synthesized network timing (``demo_timing.py``,
seeded, so the same every run); ``logprobs-top`` is a stream made here (``demo_made.py``).
``demo_list.py`` lists the demos. Timing model (ms from the request start): the first read at
a TTFT of 250-700 ms, then log-normal gaps around 15-35 ms, a few stalls of 300-900 ms,
sometimes two events in one read, and sometimes one event split across two reads in the middle
of its data line (once, in ``plain-text``, inside a UTF-8 character, so those two reads are
stored as base64).

The dialect demos (Anthropic Messages, OpenAI Responses, Gemini, Ollama, legacy completions,
Cohere, Bedrock) are real captures from ``tests/captures/dialects/`` copied as they are: they
have no timing, so the player paces them evenly; ``--check`` verifies that each is its source
byte for byte and reads as its dialect.

``--check`` verifies that: the files on disk equal a fresh build and are in the timed format's
canonical form; the reads of each real demo join to the source capture's bytes;
``python -m app.cli inspect --json`` assembles the same completion (content, reasoning, tool
calls, finish reasons, usage, logprobs), tool-call statuses, payloads and errors from the demo
as from its source; and the reader reports real timing (``timed: true``) whose TTFT, E2EL, ITL
list and error times are exactly the ones drawn here.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
# The demo modules beside this one, the repository (app, tests) and bench/ (gen_capture's usage).
sys.path[:0] = [str(SCRIPTS), str(ROOT), str(ROOT / "bench")]

from demo_list import DEMOS, Demo  # noqa: E402
from demo_made import MADE_CREATED, MADE_REQUEST, MADE_TOKENS, made_events, made_text  # noqa: E402
from demo_timing import NO_CHOICES, Event, event_times, split_events, synthesize  # noqa: E402

from app.captures.model import Capture  # noqa: E402
from app.captures.timed import (  # noqa: E402
    end_line,
    header_line,
    read_line,
    read_records,
    write_records,
)

CAPTURES = ROOT / "tests" / "captures"
DIALECT_CAPTURES = CAPTURES / "dialects"
DEMO_DIR = ROOT / "app" / "demos"
GENERATOR = "scripts/make_demos.py"
MADE_NOTE = "made by Streamscope"


# ------------------------------------------------------------------------------ sources
def attribution(capture: str) -> dict[str, str]:
    """The row of ``tests/captures/SOURCES.md`` for ``capture``: repo, path, commit, licence."""
    for line in (CAPTURES / "SOURCES.md").read_text().splitlines():
        if line.startswith(f"| `{capture}` |"):
            cells = [c.strip().strip("`") for c in line.strip("|").split(" | ")]
            return {
                "repo": cells[1],
                "path": cells[2],
                "commit": cells[3],
                "licence": cells[4],
                "transform": cells[5],
            }
    raise SystemExit(f"{capture} has no row in tests/captures/SOURCES.md")


def created_iso(events: list[Event]) -> str:
    """The first chunk's ``created`` (when the stream was made) as an ISO timestamp."""
    for event in events:
        if event.kind not in ("done", "error"):
            payload = event.data.split(b"data: ", 1)[1].split(b"\n", 1)[0]
            stamp = orjson.loads(payload)["created"]
            return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    raise ValueError("no chunk with created")


def dialect_attribution(capture: str) -> dict[str, str]:
    """The row of ``tests/captures/dialects/SOURCES.md`` for ``capture`` (its columns: file,
    dialect, source repo, path, commit, licence, what was reconstructed, what it exercises)."""
    for line in (DIALECT_CAPTURES / "SOURCES.md").read_text().splitlines():
        if line.startswith(f"| `{capture}` |"):
            cells = [c.strip().strip("`") for c in line.strip().strip("|").split(" | ")]
            return {
                "repo": cells[2],
                "path": cells[3],
                "commit": cells[4],
                "licence": cells[5],
                "transform": cells[6],
            }
    raise SystemExit(f"{capture} has no row in tests/captures/dialects/SOURCES.md")


# ------------------------------------------------------------------------------ building
def source_events(demo: Demo) -> list[Event]:
    if demo.made:
        return made_events(int(datetime.fromisoformat(MADE_CREATED).timestamp()))
    assert demo.capture is not None
    return split_events((CAPTURES / demo.capture).read_bytes())


def source_info(demo: Demo) -> dict[str, Any]:
    """The ``source`` block of index.json."""
    if demo.made:
        return {
            "kind": "made",
            "repo": None,
            "path": None,
            "commit": None,
            "licence": "Apache-2.0 (Streamscope's own)",
            "note": f"{MADE_NOTE}: text, tokens, probabilities and timing are synthetic "
            f"(generated by {GENERATOR})",
        }
    assert demo.capture is not None
    if demo.verbatim:
        row = dialect_attribution(demo.capture)
        return {
            "kind": "real",
            "repo": row["repo"],
            "path": row["path"],
            "commit": row["commit"],
            "licence": row["licence"],
            "note": f"bytes unchanged from tests/captures/dialects/{demo.capture} (fixture to "
            f"{demo.format}: {row['transform']}); no timing: replayed paced evenly",
        }
    if demo.format == "docs":
        return {
            "kind": "real",
            "repo": None,
            "path": f"tests/captures/{demo.capture}",
            "commit": None,
            "licence": None,
            "note": "a provider's documentation page of the chunk format, copied as it is "
            "(no timing); tests/captures/SOURCES.md records no provider, address or licence",
        }
    row = attribution(demo.capture)
    return {
        "kind": "real",
        "repo": row["repo"],
        "path": row["path"],
        "commit": row["commit"],
        "licence": row["licence"],
        "note": f"stream bytes unchanged from tests/captures/{demo.capture} (fixture to SSE: "
        f"{row['transform']}); network timing synthesized by Streamscope ({GENERATOR}, "
        f"seeded); request body: {demo.request_note}",
    }


def timeline(demo: Demo) -> tuple[list[Event], list[tuple[float, bytes]], float]:
    """The demo's events, its synthesized reads and its end time."""
    assert demo.profile is not None
    events = source_events(demo)
    reads, end = synthesize(events, demo.profile)
    return events, reads, end


def build(demo: Demo) -> bytes:
    if demo.verbatim:
        assert demo.capture is not None
        return (DIALECT_CAPTURES / demo.capture).read_bytes()
    if demo.format == "docs":
        assert demo.capture is not None
        return (CAPTURES / demo.capture).read_bytes()
    assert demo.profile is not None
    events, reads, end = timeline(demo)
    info = source_info(demo)
    source: dict[str, Any] = {
        "url": demo.url,
        "demo": True,
        "name": demo.name,
        "kind": info["kind"],
    }
    if demo.made:
        source["made_by"] = "Streamscope"
        source["note"] = info["note"]
        created, request = MADE_CREATED, MADE_REQUEST
    else:
        source.update(
            capture=f"tests/captures/{demo.capture}",
            repo=info["repo"],
            path=info["path"],
            commit=info["commit"],
            licence=info["licence"],
            timing=f"synthesized by Streamscope ({GENERATOR}, seed {demo.profile.seed})",
            request=demo.request_note,
        )
        created, request = created_iso(events), demo.request
    out = [
        header_line(
            created=created,
            source=source,
            request=request,
            response={"status": 200, "content_type": "text/event-stream"},
            timing="synthesized",
        )
    ]
    out.extend(read_line(t, data) for t, data in reads)
    out.append(end_line(end, demo.end_reason, demo.end_error))
    return b"".join(out)


def index_json() -> bytes:
    entries = [
        {
            "name": d.name,
            "file": d.file,
            "title": d.title,
            "description": d.description,
            "format": d.format,
            "dialect": d.dialect,
            # Where the demo's times come from (docs/capture-format.md, header "timing"): the
            # timed demos' reads are synthesized here; the others have no timing.
            "timing": "synthesized" if d.format == "timed" else "none",
            "source": source_info(d),
        }
        for d in DEMOS
    ]
    return orjson.dumps(entries, option=orjson.OPT_INDENT_2) + b"\n"


def sources_md() -> bytes:
    lines = [
        "# Demo captures",
        "",
        "The captures the player offers as demos. They are generated by `scripts/make_demos.py` "
        "(seeded, so every run gives the same bytes; `python scripts/make_demos.py --check` "
        "verifies them). `index.json` lists them for the app.",
        "",
        "- **real**: the stream bytes are a real capture from `tests/captures/`, unchanged. "
        "Those captures came without timing, so the network timing (TTFT, gaps between reads, "
        "stalls, reads that carry two events or half an event) was **synthesized** by the "
        "generator; the request body in each header is reconstructed from the test that "
        "recorded the stream, unless its note says it was recorded.",
        "- **real**, dialect demos (not `.timed.jsonl`): a capture from "
        "`tests/captures/dialects/`, bytes unchanged, no timing (the player paces it evenly).",
        "- **made**: made by Streamscope; nothing in it was produced by a model.",
        "",
        "Apache-2.0 and MIT sources: keep this attribution with the files.",
        "",
        "| demo | file | dialect | kind | source repo | path | commit | licence | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for demo in DEMOS:
        s = source_info(demo)
        lines.append(
            "| "
            + " | ".join(
                [
                    f"`{demo.name}`",
                    f"`{demo.file}`",
                    demo.dialect,
                    s["kind"],
                    s["repo"] or "-",
                    f"`{s['path']}`" if s["path"] else "-",
                    f"`{s['commit']}`" if s["commit"] else "-",
                    s["licence"] or "not recorded",
                    s["note"].replace("|", "\\|"),
                ]
            )
            + " |"
        )
    lines += [
        "",
        "The real captures' own sources (repository, path, commit, licence, how each fixture was "
        "turned into SSE text) are listed in full in `tests/captures/SOURCES.md` and "
        "`tests/captures/dialects/SOURCES.md`.",
        "",
    ]
    return "\n".join(lines).encode()


def outputs() -> dict[str, bytes]:
    files = {demo.file: build(demo) for demo in DEMOS}
    files["index.json"] = index_json()
    files["SOURCES.md"] = sources_md()
    return files


# ------------------------------------------------------------------------------ checking
def inspect(path: Path) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise AssertionError(f"inspect {path.name} exited {result.returncode}: {result.stderr!r}")
    return orjson.loads(result.stdout)


def comparable(stream: dict[str, Any]) -> dict[str, Any]:
    """What must not change when only the timing changes."""
    completion = stream["completion"]
    return {
        "choices": completion["choices"],  # content, reasoning, tool calls, finish, logprobs
        "usage": completion.get("usage"),
        "tool_calls": stream["tool_calls"],
        "errors": [{k: v for k, v in e.items() if k != "t"} for e in stream["errors"]],
        "payloads": stream["payloads"],
    }


def check_demo(demo: Demo, path: Path, problems: list[str]) -> dict[str, Any] | None:
    got = inspect(path)
    if got["format"] != demo.format:
        problems.append(f"{demo.name}: read as {got['format']}, not {demo.format}")
    if demo.verbatim:
        check_verbatim(demo, path, got, problems)
        return None
    if demo.format == "docs":
        if len(got["streams"]) != 2:
            problems.append(f"{demo.name}: {len(got['streams'])} streams, not 2")
        return None
    [stream] = got["streams"]
    metrics = stream["metrics"]
    capture = Capture(format=None)
    if write_records(read_records(path.read_bytes(), capture)) != path.read_bytes():
        problems.append(f"{demo.name}: not in the canonical form (read then write changes it)")
    if not metrics["timed"] or metrics["ttft_ms"] is None or metrics["itl_p50_ms"] is None:
        problems.append(f"{demo.name}: no real timing metrics: {metrics}")
    if stream["end_reason"] != demo.end_reason:
        problems.append(f"{demo.name}: end reason {stream['end_reason']!r}")
    bad = [d for d in got["diagnostics"] + stream["diagnostics"] if d["severity"] != "info"]
    if bad and demo.name != "error-midstream":
        problems.append(f"{demo.name}: diagnostics {bad}")
    check_times(demo, stream, problems)
    if demo.made:
        check_made(stream, problems)
    else:
        assert demo.capture is not None
        records = map(orjson.loads, path.read_bytes().splitlines())
        joined = b"".join(
            r["text"].encode() if "text" in r else base64.b64decode(r["base64"])
            for r in records
            if r["type"] == "read"
        )
        if joined != (CAPTURES / demo.capture).read_bytes():
            problems.append(f"{demo.name}: the reads do not join to the source capture")
        [source] = inspect(CAPTURES / demo.capture)["streams"]
        want, have = comparable(source), comparable(stream)
        for key in want:
            if want[key] != have[key]:
                problems.append(f"{demo.name}: {key} differs from the source capture's")
    return metrics


def check_verbatim(demo: Demo, path: Path, got: dict[str, Any], problems: list[str]) -> None:
    """A dialect demo is its source, byte for byte, and reads as its dialect without errors."""
    assert demo.capture is not None
    if path.read_bytes() != (DIALECT_CAPTURES / demo.capture).read_bytes():
        problems.append(f"{demo.name}: differs from tests/captures/dialects/{demo.capture}")
    dialects = [s["dialect"] for s in got["streams"]]
    if dialects != [demo.dialect]:
        problems.append(f"{demo.name}: read as {dialects}, not [{demo.dialect!r}]")
    bad = [d for s in got["streams"] for d in s["diagnostics"] if d["severity"] == "error"]
    if bad:
        problems.append(f"{demo.name}: diagnostics {bad}")


def check_times(demo: Demo, stream: dict[str, Any], problems: list[str]) -> None:
    """The reader's TTFT, E2EL, ITL list and error time are the ones the generator drew."""
    events, reads, _ = timeline(demo)
    times = event_times(events, reads)
    bearing = [t for e, t in zip(events, times, strict=True) if e.kind not in NO_CHOICES]
    want = {
        "ttft_ms": bearing[0],
        "e2el_ms": bearing[-1],
        "itl_ms": [round(b - a, 3) for a, b in itertools.pairwise(bearing)],
    }
    have = {key: stream["metrics"][key] for key in want}
    if want != have:
        problems.append(f"{demo.name}: timing read back differs from the timing drawn")
    errors = [t for e, t in zip(events, times, strict=True) if e.kind == "error"]
    if errors != [e["t"] for e in stream["errors"]]:
        problems.append(f"{demo.name}: error times {[e['t'] for e in stream['errors']]}")


def check_made(stream: dict[str, Any], problems: list[str]) -> None:
    [choice] = stream["completion"]["choices"]
    text = "".join(made_text(t) for t in MADE_TOKENS)
    if choice["message"]["content"] != text:
        problems.append(f"logprobs-top: content {choice['message']['content']!r}")
    entries = (choice.get("logprobs") or {}).get("content") or []
    if [e["token"] for e in entries] != MADE_TOKENS:
        problems.append("logprobs-top: logprobs.content tokens differ from the tokens made")
    if any(len(e["top_logprobs"]) != 5 for e in entries):
        problems.append("logprobs-top: an entry without 5 top_logprobs")
    joined = bytes(b for e in entries for b in e["bytes"])
    if joined.decode() != text:
        problems.append("logprobs-top: the tokens' bytes do not spell the content")
    if choice["finish_reason"] != "stop":
        problems.append(f"logprobs-top: finish {choice['finish_reason']!r}")
    usage = stream["completion"].get("usage") or {}
    if usage.get("completion_tokens") != len(MADE_TOKENS):
        problems.append(f"logprobs-top: usage {usage}")


def check() -> int:
    problems: list[str] = []
    fresh = outputs()
    on_disk = {p.name for p in DEMO_DIR.iterdir()} if DEMO_DIR.exists() else set()
    for name, data in fresh.items():
        path = DEMO_DIR / name
        if not path.exists():
            problems.append(f"{name}: missing")
        elif path.read_bytes() != data:
            problems.append(f"{name}: differs from a fresh build (run {GENERATOR})")
    extra = on_disk - set(fresh) - {"__init__.py"}  # the package module that lists the demos
    if extra:
        problems.append(f"unexpected files in app/demos: {sorted(extra)}")
    for demo in DEMOS:
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", demo.name):
            problems.append(f"{demo.name}: not a lowercase-with-dashes slug")
        path = DEMO_DIR / demo.file
        if not path.exists():
            continue
        metrics = check_demo(demo, path, problems)
        if metrics:
            print(f"{demo.name:22} {summary(metrics)}")
        else:
            print(f"{demo.name:22} ({demo.format}, {demo.dialect}, no timing)")
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def summary(m: dict[str, Any]) -> str:
    stalls = ", ".join(f"{s['gap_ms']:.0f}" for s in m["stalls"]) or "none"
    tokens = (
        f"{m['output_tokens']} tokens ({m['tokens_per_s']:.0f}/s, "
        f"decode {m['decode_tokens_per_s']:.0f}/s)"
        if m["output_tokens"]
        else "tokens unknown"
    )
    return (
        f"TTFT {m['ttft_ms']:.0f} ms, ITL p50 {m['itl_p50_ms']:.1f} / p95 {m['itl_p95_ms']:.1f} "
        f"/ max {m['itl_max_ms']:.0f} ms, E2EL {m['e2el_ms']:.0f} ms, {tokens}, "
        f"stalls [{stalls}] ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="verify app/demos, write nothing")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    DEMO_DIR.mkdir(parents=True, exist_ok=True)
    for name, data in outputs().items():
        (DEMO_DIR / name).write_bytes(data)
        print(f"wrote app/demos/{name} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
