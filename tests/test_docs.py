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
    for testid in re.findall(r'data-testid="([a-z-]+)"', templates):
        assert f"`{testid}`" in readme, testid
    # The player's views make the rest of the page's hooks (issue 12 added several).
    views = " ".join(p.read_text() for p in (ROOT / "static" / "js" / "views").glob("*.js"))
    made = set(re.findall(r'"data-testid": "([a-z-]+)"', views))
    assert len(made) > 30
    assert sorted(t for t in made if f"`{t}`" not in readme) == []
