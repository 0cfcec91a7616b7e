"""Golden expected outputs for the real captures: write them, or check them.

    python tests/golden/regen.py --check        # exit 1 on any difference or missing review
    python tests/golden/regen.py                # write missing goldens; report changed ones
    python tests/golden/regen.py --update NAME  # overwrite NAME.json with today's output
    python tests/golden/regen.py --update-all   # overwrite every golden (read the diff first!)

Each golden is ``{"capture", "format", "streams": [...], "review", "findings_review"}``.
Everything but the two reviews is machine output (``read_capture`` + ``summarize`` + ``plain``,
and each stream's findings, docs/rules.md); ``review`` is written by hand, and so is
``findings_review``, which justifies every warning or error finding of the capture (a finding
that is not justified is a false positive to fix). Both are kept from the existing file.

Some goldens hold a hand-corrected value where Streamscope's output is wrong by the rules in
docs/assembly.md (the review says so): ``--check`` fails on them until the app is fixed. Overwriting
a golden with ``--update`` would bake the bug in, so the default run never overwrites.

Which captures have goldens: every ``tests/captures/*.sse`` except those taken from
openai/openai-python or openai/openai-node (see SOURCES.md; an SDK parity test covers them),
plus the documentation page and ``derived/*`` (golden ``derived-<file>.json``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "tests" / "captures"
GOLDEN = ROOT / "tests" / "golden"
SDK_PARITY_REPOS = ("openai/openai-python", "openai/openai-node")

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.captures import read_capture  # noqa: E402
from app.domain.dialects.chat.assemble import plain  # noqa: E402
from app.domain.rules import find  # noqa: E402
from app.domain.summary import summarize  # noqa: E402


def sdk_parity_captures() -> set[str]:
    """Capture file names whose source repo (SOURCES.md table) is an openai SDK."""
    names: set[str] = set()
    row = re.compile(r"^\|\s*`([^`]+\.sse)`\s*\|\s*([^|\s]+)\s*\|")
    for line in (CAPTURES / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        match = row.match(line)
        if match and match.group(2) in SDK_PARITY_REPOS:
            names.add(match.group(1))
    return names


def targets() -> dict[str, Path]:
    """Golden name -> capture path."""
    skip = sdk_parity_captures()
    out: dict[str, Path] = {}
    for path in sorted(CAPTURES.glob("*.sse")):
        if path.name not in skip:
            out[path.stem] = path
    out["chat-completion-chunk-docs"] = CAPTURES / "chat-completion-chunk-docs.txt"
    for path in sorted((CAPTURES / "derived").iterdir()):
        if path.is_file():
            out[f"derived-{path.name.removesuffix('.sse')}"] = path
    return out


def machine(path: Path) -> dict[str, Any]:
    """The machine part of a golden for one capture."""
    capture = read_capture(path.read_bytes())
    streams = []
    for stream in capture.streams:
        summary = summarize(stream)
        streams.append(
            {
                "dialect": summary["dialect"],
                "completion": plain(summary["completion"]),
                "tool_calls": summary["tool_calls"],
                "errors": [{"message": e["message"], "code": e["code"]} for e in summary["errors"]],
                "payloads": [{"category": p["category"]} for p in summary["payloads"]],
                "diagnostic_codes": sorted({d["code"] for d in summary["diagnostics"]}),
                "findings": [
                    f"{f.rule} ({f.severity}) x{f.count}" for f in find(stream, metrics=None)
                ],
            }
        )
    return {
        "capture": path.relative_to(CAPTURES).as_posix(),
        "format": capture.format,
        "streams": streams,
    }


def dump(document: dict[str, Any]) -> str:
    return json.dumps(plain(document), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    parser.add_argument("--update", nargs="+", default=[], metavar="NAME", help="overwrite these")
    parser.add_argument("--update-all", action="store_true", help="overwrite every golden")
    parser.add_argument("-q", "--quiet", action="store_true", help="no diffs, names only")
    args = parser.parse_args(argv)

    wanted = targets()
    unknown = [n for n in args.update if n not in wanted]
    if unknown:
        parser.error(f"no such golden: {', '.join(unknown)}")
    failed: list[str] = []
    for name, path in wanted.items():
        golden = GOLDEN / f"{name}.json"
        current = machine(path)
        old: dict[str, Any] | None = None
        if golden.exists():
            old = json.loads(golden.read_text(encoding="utf-8"))
        review = (old or {}).get("review", "")
        current["review"] = review
        if (old or {}).get("findings_review"):
            current["findings_review"] = old["findings_review"]  # type: ignore[index]
        current = json.loads(dump(current))  # the values as they read back from the file
        if args.check and old is not None and not str(review).strip():
            failed.append(name)
            print(f"{name}: no review (write what was checked by hand)", file=sys.stderr)
        if old == current:
            continue  # compared as values: key order and layout of a hand edit do not matter
        new_text = dump(current)
        old_text = dump(old) if old is not None else None
        if args.check or (old is not None and not args.update_all and name not in args.update):
            failed.append(name)
            what = "missing" if old is None else "differs"
            print(f"{name}: {what}", file=sys.stderr)
            if old_text is not None and not args.quiet:
                diff = difflib.unified_diff(
                    old_text.splitlines(keepends=True),
                    new_text.splitlines(keepends=True),
                    f"golden/{name}.json",
                    "streamscope output",
                    n=2,
                )
                sys.stderr.writelines(diff)
            continue
        golden.write_text(new_text, encoding="utf-8")
        print(f"{name}: {'written' if old is None else 'updated'}")
    stale = sorted(p.stem for p in GOLDEN.glob("*.json") if p.stem not in wanted)
    for name in stale:
        print(f"{name}: golden without a capture", file=sys.stderr)
    if failed or stale:
        print(f"{len(failed) + len(stale)} golden(s) not matching", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
