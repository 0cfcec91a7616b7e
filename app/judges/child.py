"""The process a Python judge runs in (runner.py starts it): ``python -m app.judges.child
MODULE API`` reads the captured bytes from standard input, gives them to the client, and writes
one JSON line: ``{"theirs": {...}}`` with what the client read, or ``{"crash": "Type: message"}``
when it raised."""

from __future__ import annotations

import importlib
import json
import sys

MODULES = frozenset({"openai_python", "anthropic_python", "langchain_openai"})


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in MODULES:
        print(json.dumps({"crash": "usage: child MODULE API"}))
        return 2
    body = sys.stdin.buffer.read()
    module = importlib.import_module(f"app.judges.{argv[0]}")
    try:
        theirs = module.read(argv[1], body)
    except Exception as exc:  # the verdict: what the client raised, not a traceback
        print(json.dumps({"crash": f"{type(exc).__name__}: {exc}"}, default=str))
        return 0
    print(json.dumps({"theirs": theirs}, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
