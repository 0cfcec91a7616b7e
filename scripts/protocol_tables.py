"""Write the field tables of docs/protocol.md from the message shapes in app/protocol.py.

    python scripts/protocol_tables.py           # rewrite the tables in place
    python scripts/protocol_tables.py --check   # exit 1 when the doc's tables are not these

Each server message's section ("### <type>" under "## Server to page") gets its shape's table
just before its JSON example; ``capture`` also the table of each stream (``StreamInfo``).
tests/test_protocol.py runs ``tables`` on the doc and fails when it would change anything.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from app.protocol import (  # noqa: E402
    SERVER_SHAPES,
    FindingInfo,
    RequestInfo,
    StreamInfo,
    field_rows,
)

DOC = ROOT / "docs" / "protocol.md"
HEADER = "| field | type | always |"
NESTED: dict[str, tuple[tuple[str, type[msgspec.Struct]], ...]] = {
    "capture": (
        ("Each of `streams` is a `StreamInfo`:", StreamInfo),
        ("A stream's `request`, when known, is a `RequestInfo`:", RequestInfo),
    ),
    "findings": (("Each of `findings` is a `FindingInfo`:", FindingInfo),),
}


def _without_tables(lines: list[str]) -> list[str]:
    """A section's lines with its generated tables (and their captions) taken out."""
    kept: list[str] = []
    in_table = False
    captions = {caption for nested in NESTED.values() for caption, _ in nested}
    for line in lines:
        if line == HEADER:
            in_table = True
            if kept and kept[-1] == "":
                kept.pop()
            if kept and kept[-1] in captions:
                kept.pop()
                if kept and kept[-1] == "":
                    kept.pop()
            continue
        if in_table and line.startswith("|"):
            continue
        in_table = False
        kept.append(line)
    return kept


def _section(name: str, lines: list[str]) -> list[str]:
    lines = _without_tables(lines)
    fence = lines.index("```json")
    before = lines[:fence]
    while before and before[-1] == "":
        before.pop()
    table = ["", *field_rows(SERVER_SHAPES[name])]
    for caption, shape in NESTED.get(name, ()):
        table += ["", caption, "", *field_rows(shape)]
    return [*before, *table, "", *lines[fence:]]


def tables(text: str) -> str:
    """The doc with every server message's field tables as the shapes say."""
    lines = text.split("\n")
    start = lines.index("## Server to page")
    end = lines.index("## Page to server")
    heads = [i for i in range(start, end) if re.fullmatch(r"### \w+", lines[i])]
    out = lines[: heads[0]]
    for at, nxt in zip(heads, [*heads[1:], end], strict=True):
        name = lines[at][4:]
        out += [lines[at], *_section(name, lines[at + 1 : nxt])]
    return "\n".join(out + lines[end:])


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    written = tables(text)
    if "--check" in argv:
        if written != text:
            print("docs/protocol.md: the field tables are not the shapes' (run this script)")
            return 1
        return 0
    DOC.write_text(written, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
