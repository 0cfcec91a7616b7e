"""The JS pure modules (protocol, timeline, clock, player, share, formatting) under Node's
built-in test runner."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js is needed for the JS unit tests"
    result = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js")], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    passed = int(re.search(r"^# pass (\d+)", result.stdout, re.M).group(1))
    assert passed >= 15
    assert re.search(r"^# fail 0", result.stdout, re.M)
