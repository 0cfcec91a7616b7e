"""The package's import graph (issue 27, section 4): no cycle between modules, counting the
imports made inside functions (a cycle hidden behind a local import is still a cycle); imports
inside functions only where they buy something said here; and ``settings.py``, the base layer,
imports nothing of the application.

Before: the dialect registry and ``interpret.py`` imported each other (through a local import),
``app`` and ``app.web`` did (through ``__version__``), ``scrub/`` and the format registry did,
and ``settings.py`` imported ``app.live.keys``."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"

# Imports made inside a function, each for a reason: what may load lazily, and the one place
# where two packages still lean on each other at import time.
LAZY = {
    "app/__init__.py": "create_app: reading a capture does not import Flask",
    "app/cli.py": "start-up: each command imports only what it runs",
    "app/storage/factory.py": "the backends: PostgreSQL's driver is optional",
    "app/storage/postgres.py": "psycopg, an optional dependency",
    "app/web/__init__.py": "create_app: the OpenTelemetry SDK (about 40 ms) only with an endpoint",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(APP.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in APP.rglob("*.py")}


def type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(path: Path) -> list[tuple[str, bool]]:
    """Each module of the application ``path`` imports, and whether inside a function."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if type_checking(child):
                continue
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                target = (
                    ".".join([*base, child.module or ""]).strip(".")
                    if child.level
                    else child.module
                )
                for alias in child.names:
                    full = f"{target}.{alias.name}"
                    found.append((full if full in MODULES else str(target), inside))
            elif isinstance(child, ast.Import):
                found.extend((alias.name, inside) for alias in child.names)
            visit(child, inside)

    visit(ast.parse(path.read_text()), False)
    return [(target, inside) for target, inside in found if target in MODULES]


def graph() -> dict[str, set[str]]:
    return {
        name: {target for target, _ in imports(path) if target != name}
        for name, path in MODULES.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in edges:
        if v not in index:
            strong(v)
    return found


def test_no_module_imports_itself_round_a_cycle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_inside_functions_are_only_where_they_buy_something():
    found = sorted(
        str(path.relative_to(APP.parent))
        for path in MODULES.values()
        if any(inside for _, inside in imports(path))
    )
    assert set(found) <= set(LAZY), sorted(set(found) - set(LAZY))


def test_settings_imports_nothing_of_the_application():
    assert imports(APP / "settings.py") == []


def test_the_services_layer_runs_without_flask():
    """app/services (sources, uploads, documents, exports, results, replay, errors) is what the
    web layer, the CLI and the offline export share: importing all of it loads no Flask."""
    import subprocess
    import sys

    modules = sorted(
        "app.services." + p.stem for p in (APP / "services").glob("*.py") if p.stem != "__init__"
    )
    assert {"app.services.sources", "app.services.uploads", "app.services.documents"} <= set(
        modules
    )
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules)
    code += "print(sorted(m for m in ('flask', 'werkzeug', 'flask_sock') if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=APP.parent, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_layer_below_web_imports_web():
    """The services, the domain, captures, storage and the standalone export never import
    app.web (the web layer sits on them, not the other way round)."""
    below = ["services", "domain", "captures", "storage", "standalone"]
    for package in below:
        for path in (APP / package).rglob("*.py"):
            names = [name for name, _ in imports(path)]
            assert not any(n == "app.web" or n.startswith("app.web.") for n in names), path
