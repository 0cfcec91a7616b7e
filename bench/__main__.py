"""The benchmarks' one runner: ``python -m bench NAME [ARGS...]`` from the repository root.

    python -m bench                 # list every benchmark and tool, with what each measures
    python -m bench parse --quick   # bench/bench_parse.py's main with --quick
    python -m bench proxy           # bench/bench_proxy.py

A benchmark is a ``bench/bench_<name>.py`` module with ``main(argv) -> int`` (its name here is
``<name>`` with ``-`` for ``_``); the input writers (``gen_*.py``), the load scripts that
``load`` runs one by one (``load_*.py``) and the studies (``ideal_columns.py``) are reached the
same way under their file's name. Adding a benchmark is adding its file: nothing to register.
Each prints its Markdown table (docs/performance.md, "The benchmarks") and exits 0 when every
target is met. The kit (``bench/kit/``) is what they share.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the benches import ``kit`` and each other as top-level modules

import kit  # noqa: E402

TOOLS = ("gen_", "load_", "ideal_")


def runnable() -> dict[str, Path]:
    """Every runnable module of bench/, by the name the runner gives it."""
    found: dict[str, Path] = {}
    for path in sorted(HERE.glob("*.py")):
        if path.stem.startswith("bench_"):
            found[path.stem.removeprefix("bench_").replace("_", "-")] = path
        elif path.stem.startswith(TOOLS):
            found[path.stem.replace("_", "-")] = path
    return found


def summary(path: Path) -> str:
    """The first line of a module's docstring, read without importing it."""
    text = path.read_text(encoding="utf-8")
    start = text.find('"""')
    return text[start + 3 :].split("\n", 1)[0].strip() if start >= 0 else ""


def listing() -> str:
    names = runnable()
    width = max(map(len, names))
    rows = [f"  {name:<{width}}  {summary(path)}" for name, path in names.items()]
    return "usage: python -m bench NAME [ARGS...]\n\n" + "\n".join(rows)


def main(argv: list[str]) -> int:
    names = runnable()
    if not argv or argv[0] in ("-h", "--help", "--list"):
        print(listing())
        return 0
    name, args = argv[0], argv[1:]
    if name not in names:
        print(f"unknown benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    kit.INVOKED_AS[:] = ["python", "-m", "bench", name]
    sys.argv = [" ".join(kit.INVOKED_AS), *args]  # what argparse's usage line names
    module = importlib.import_module(names[name].stem)
    code: int = module.main(args)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
