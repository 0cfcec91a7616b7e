"""The browser knows roles, not dialects (issue 27, section 3; docs/dialects.md, "Adding a
dialect"): no file in ``static/js`` names a dialect, or an event type or field name that only a
dialect's payloads have. The forbidden names are read from the dialects themselves, so the list
grows with every dialect added: each registered dialect's name and the first word of its title,
each dialect package's folder name, and every many-word identifier (``server_tool_use``,
``executableCode``) written as a string in a dialect package's code or in the module their
views share shapes in (``viewparts.py``), less the timeline's and the
protocol's own vocabulary (docs/timeline.md, docs/protocol.md), which the page is meant to read.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app import protocol
from app.domain import dialects as registry

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "static" / "js"
DIALECTS = Path(registry.__file__).parent
# The modules whose strings are the shared vocabulary: the timeline's events, the counters
# every dialect shares, the roles and labels the page reads, the payload categories, and the
# wire protocol.
SHARED = (
    ROOT / "app" / "domain" / "events.py",
    DIALECTS / "labels.py",
    ROOT / "app" / "domain" / "payloads.py",
    DIALECTS / "base.py",
    ROOT / "app" / "protocol.py",
    ROOT / "app" / "wire.py",
)
# The metrics' names (the summary's ``metrics``, docs/timeline.md, "Metrics"): the keys of the
# objects that module builds, and none of its other strings.
METRICS = ROOT / "app" / "domain" / "metrics.py"
# A logprobs entry's members are the timeline's (docs/timeline.md, "logprobs"), written only
# in that module's docstrings; the live runs' default API is the protocol's (``start``).
TIMELINE_WORDS = frozenset({"top_logprobs", protocol.DEFAULT_API})
MANY_WORDS = re.compile(r"^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)$")


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module and its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def identifiers(path: Path, fields: bool = False) -> set[str]:
    """The many-word identifiers written in the strings of a module's code (not its docs);
    with ``fields``, its annotated names too (the events' dataclass fields)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found.update(p for p in re.split(r"[.\s:/]+", node.value) if MANY_WORDS.match(p))
        elif fields and isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return found


def keys_of(path: Path) -> set[str]:
    """The string keys of a module's dict literals."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        k.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for k in node.keys
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
    }


def shared_vocabulary() -> set[str]:
    shared = set().union(*(identifiers(p, fields=True) for p in SHARED))
    return shared | keys_of(METRICS) | TIMELINE_WORDS


def dialect_names() -> set[str]:
    """Every name that belongs to one dialect (lower case)."""
    names = set()
    for dialect in registry.DIALECTS:
        names.update({dialect.name, dialect.title.split()[0]})
    packages = [p for p in DIALECTS.iterdir() if (p / "__init__.py").is_file()]
    names.update(p.name for p in packages)
    for module in [*(m for p in packages for m in p.rglob("*.py")), DIALECTS / "viewparts.py"]:
        names.update(identifiers(module))
    return {n.lower() for n in names} - {w.lower() for w in shared_vocabulary()}


def offenders() -> dict[str, list[str]]:
    """Each JS file that names a dialect, with the names it uses."""
    names = dialect_names()
    word = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*[A-Za-z0-9_]|[A-Za-z0-9_]")
    found = {}
    for path in sorted(JS.rglob("*.js")):
        words = {w.lower() for w in word.findall(path.read_text(encoding="utf-8"))}
        words |= {p for w in words for p in w.split("-")}
        hits = sorted(words & names)
        if hits:
            found[str(path.relative_to(JS))] = hits
    return found


def test_the_forbidden_names_come_from_the_dialects():
    """The list is complete on what the issue names, and leaves the timeline's words alone."""
    names = dialect_names()
    assert {"anthropic", "gemini", "server_tool_use", "web_search_call", "executablecode"} <= names
    assert {"ollama", "bedrock", "cohere", "chat-completions"} <= names
    assert {"cited_text", "start_index", "startindex"} <= names  # the shared shapes' too
    assert not names & {"block_start", "tool_start", "input_tokens", "top_logprobs", "usage_help"}


def test_no_js_file_names_a_dialect():
    assert offenders() == {}
