"""The player's ES modules as one script, for the static export (docs/teaching.md, "Static
export"): a page opened from ``file://`` cannot import modules from files, so they are put in
one inline module script, each module in its own function scope.

The project writes its modules in one plain form (no bundler): one ``import { a, b as c } from
"./x.js";`` or ``import * as x from "./x.js";`` per line, ``export`` before a top-level
``class``, ``function`` or ``const``, and ``export { name };`` to pass an import on. That form
is all this reads; anything else (a default export, ``export let``, an import cycle, a bare
import) is an error that names the module and line, never a half-working bundle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

IMPORT = re.compile(r'^import\s+(?P<what>.+?)\s+from\s+"(?P<path>\.{1,2}/[^"]+)";\s*$')
EXPORT_DECL = re.compile(
    r"^export\s+(?:async\s+)?(?:class|function\*?|const)\s+(?P<name>[A-Za-z_$][\w$]*)"
)
EXPORT_LIST = re.compile(r"^export\s*\{(?P<names>[^}]*)\};\s*$")
NAMED = re.compile(r"^\{(?P<names>[^}]*)\}$")
NAMESPACE = re.compile(r"^\*\s+as\s+(?P<name>[A-Za-z_$][\w$]*)$")


class BundleError(Exception):
    """A module this bundler cannot take, with where and why."""


@dataclass
class Module:
    path: Path
    body: list[str] = field(default_factory=list)
    imports: list[tuple[Path, str]] = field(default_factory=list)  # (module, binding text)
    exports: list[str] = field(default_factory=list)


def _bindings(what: str, where: str) -> str:
    """The left side of ``const ... = module;`` for an import clause."""
    named = NAMED.match(what)
    if named:
        parts = []
        for item in filter(None, (p.strip() for p in named["names"].split(","))):
            name, _, alias = (s.strip() for s in item.partition(" as "))
            parts.append(f"{name}: {alias}" if alias else name)
        return "{ " + ", ".join(parts) + " }"
    namespace = NAMESPACE.match(what)
    if namespace:
        return namespace["name"]
    raise BundleError(f"{where}: only named and namespace imports are bundled, not {what!r}")


def parse(path: Path) -> Module:
    module = Module(path)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}, line {number}"
        if line.startswith("import"):
            found = IMPORT.match(line)
            if not found:
                raise BundleError(f"{where}: an import this bundler does not read: {line!r}")
            target = (path.parent / found["path"]).resolve()
            module.imports.append((target, _bindings(found["what"].strip(), where)))
            continue
        if line.startswith("export"):
            listed = EXPORT_LIST.match(line)
            if listed:
                module.exports += [n.strip() for n in listed["names"].split(",") if n.strip()]
                continue
            declared = EXPORT_DECL.match(line)
            if not declared:
                raise BundleError(f"{where}: an export this bundler does not read: {line!r}")
            module.exports.append(declared["name"])
            line = line[len("export") :].lstrip()
        module.body.append(line)
    return module


def _order(entry: Path) -> list[Module]:
    """Every module the entry needs, each after the modules it imports."""
    done: dict[Path, Module] = {}
    visiting: list[Path] = []

    def visit(path: Path) -> None:
        if path in done:
            return
        if path in visiting:
            cycle = " -> ".join(p.name for p in [*visiting[visiting.index(path) :], path])
            raise BundleError(f"import cycle: {cycle}")
        if not path.is_file():
            raise BundleError(
                f"{visiting[-1].name if visiting else 'entry'} imports {path}, which does not exist"
            )
        visiting.append(path)
        module = parse(path)
        for target, _ in module.imports:
            visit(target)
        visiting.pop()
        done[path] = module

    visit(entry.resolve())
    return list(done.values())


def bundle(entry: Path) -> str:
    """One script: each module as a function run once, in dependency order, its exports
    returned as an object that the modules importing it destructure."""
    modules = _order(entry)
    names = {module.path: f"__m{i}" for i, module in enumerate(modules)}
    root = entry.resolve().parent
    out = [
        "// Streamscope's player, bundled for a page without a server (app/standalone/bundle.py)."
    ]
    for module in modules:
        out.append(f"// {module.path.relative_to(root).as_posix()}")
        out.append(f"const {names[module.path]} = (() => {{")
        out += [f"const {binding} = {names[target]};" for target, binding in module.imports]
        out += module.body
        out.append(f"return {{ {', '.join(module.exports)} }};")
        out.append("})();")
    return "\n".join(out) + "\n"
