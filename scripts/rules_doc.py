"""Write docs/rules.md's catalogue from the rules in app/domain/rules.

    python scripts/rules_doc.py           # rewrite the generated part in place
    python scripts/rules_doc.py --check   # exit 1 when the doc is not current

Everything above the marker line is written by hand and kept.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.domain.rules import RULES  # noqa: E402
from app.domain.rules.catalogue import document  # noqa: E402

DOC = ROOT / "docs" / "rules.md"


def main(argv: list[str]) -> int:
    current = DOC.read_text(encoding="utf-8")
    wanted = document(current, RULES)
    if "--check" in argv:
        if current != wanted:
            print("docs/rules.md is not current: run python scripts/rules_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
