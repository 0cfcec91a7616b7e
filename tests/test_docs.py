"""The docs say what the code does: every event kind and every diagnostic code is documented."""

from __future__ import annotations

import re
from pathlib import Path

from app.domain.events import EVENT_KINDS

ROOT = Path(__file__).resolve().parent.parent


def test_every_event_kind_has_a_heading_and_an_example():
    text = (ROOT / "docs" / "timeline.md").read_text()
    headings = re.findall(r"^### (\w+)$", text, re.M)
    assert sorted(headings) == sorted(EVENT_KINDS)
    for kind in EVENT_KINDS:
        assert f'{{"kind": "{kind}"' in text, kind


def diagnostic_codes_in_source() -> set[str]:
    patterns = [
        r'note\(\s*[\w.]+,\s*"([a-z0-9_]+)"',  # interpreter.note(raw, "code", ...)
        r'\.note\(\s*"([a-z0-9_]+)"',  # capture.note("code", ...)
        r'self\._note\(\s*"([a-z0-9_]+)"',
        r'Problem\(\s*"([a-z0-9_]+)"',
        r'code="([a-z0-9_]+)"',
        r'\("(tool_[a-z_]+)",',  # tool-call notes
    ]
    codes: set[str] = set()
    paths = [*(ROOT / "app" / "domain").rglob("*.py"), *(ROOT / "app" / "captures").rglob("*.py")]
    for path in paths:
        source = path.read_text()
        for pattern in patterns:
            codes.update(re.findall(pattern, source))
    return codes


def test_every_diagnostic_code_is_documented():
    documented = set(
        re.findall(r"^\| `([a-z0-9_]+)` \|", (ROOT / "docs" / "diagnostics.md").read_text(), re.M)
    )
    used = diagnostic_codes_in_source()
    assert len(used) > 40
    assert used <= documented, sorted(used - documented)


def test_readme_lists_every_setting_and_every_testid_the_page_has():
    from app.settings import SETTINGS

    readme = (ROOT / "README.md").read_text()
    for setting in SETTINGS:
        assert f"`STREAMSCOPE_{setting.name.upper()}`" in readme, setting.name
    templates = " ".join(p.read_text() for p in (ROOT / "templates").glob("_player.html"))
    templates += (ROOT / "templates" / "_transport.html").read_text()
    for name in ("_teach.html", "room.html", "compare.html"):  # docs/teaching.md
        templates += (ROOT / "templates" / name).read_text()
    for testid in re.findall(r'data-testid="([a-z-]+)"', templates):
        assert f"`{testid}`" in readme, testid
    # The player's views make the rest of the page's hooks (issue 12 added several).
    views = " ".join(p.read_text() for p in (ROOT / "static" / "js" / "views").glob("*.js"))
    made = set(re.findall(r'"data-testid": "([a-z-]+)"', views))
    assert len(made) > 30
    assert sorted(t for t in made if f"`{t}`" not in readme) == []


def test_the_project_cites_only_docs_a_clone_of_it_has():
    """Comments, docs and tests name files of the project itself (docs/...), never design notes
    or folders outside it."""
    cited = re.compile(r"\bdocs/([\w.-]+\.md)\b")
    outside = re.compile(
        r"\.\./(?:shared|design)|\b(?:SECURITY|STREAMS|ARCHITECTURE|ANCHORS|DIALECTS)\.md\b"
    )
    paths = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    for folder in ("app", "docs", "tests", "bench", "templates", "static", "scripts"):
        paths += [
            p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".js", ".html")
        ]
    for path in paths:
        text = path.read_text(errors="replace")
        assert not outside.search(text), f"{path} cites a file outside the project"
        if "captures" in path.relative_to(ROOT).parts:
            continue  # test data names paths in the repositories it came from
        for name in cited.findall(text):
            assert (ROOT / "docs" / name).exists(), f"{path} cites docs/{name}, which is missing"
