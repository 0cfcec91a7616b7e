"""The bundled demos (issue 12): one for every dialect, each a real capture with its attribution,
and all of them exactly what ``scripts/make_demos.py`` builds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.captures import read_capture
from app.demos import DEMO_DIR, catalog
from app.domain.dialects import DIALECTS

ROOT = Path(__file__).resolve().parent.parent
DIALECT_CAPTURES = ROOT / "tests" / "captures" / "dialects"


def test_every_dialect_has_a_demo_that_reads_as_that_dialect():
    demos = catalog().values()
    assert {d.dialect for d in demos} == {d.name for d in DIALECTS}
    for demo in demos:
        streams = read_capture(demo.read_bytes()).streams
        assert {s.dialect_name for s in streams} == {demo.dialect}, demo.name


def test_dialect_demos_are_real_captures_with_their_attribution():
    sources = (DEMO_DIR / "SOURCES.md").read_text()
    corpus_sources = (DIALECT_CAPTURES / "SOURCES.md").read_text()
    for demo in catalog().values():
        if demo.dialect == "chat-completions":
            continue
        capture = Path(demo.source["note"].split("tests/captures/dialects/")[1].split(" ")[0])
        assert demo.read_bytes() == (DIALECT_CAPTURES / capture).read_bytes(), demo.name
        assert f"| `{capture}` |" in corpus_sources
        assert demo.source["licence"] in ("Apache-2.0", "MIT") and demo.source["repo"]
        assert f"| `{demo.name}` | `{demo.file}` | {demo.dialect} | real |" in sources


@pytest.mark.slow
def test_the_demos_are_what_the_generator_builds():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_demos.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
