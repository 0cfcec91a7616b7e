"""The official SDKs are imported by the tests that run them, not when the suite is collected:
collecting every test module (what ``pytest -k`` or one file's run pays first) imports none of
openai, anthropic, google-genai, ollama or langchain (about 2.7 s on a 2-core machine)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SDKS = ("openai", "anthropic", "google.genai", "ollama", "langchain_openai", "langchain_core")

IMPORT_EVERY_TEST_MODULE = """
import importlib, pkgutil, sys
import tests
for module in pkgutil.walk_packages(tests.__path__, "tests."):
    importlib.import_module(module.name)
print(" ".join(name for name in {sdks!r} if name in sys.modules))
"""


@pytest.mark.slow
def test_collecting_the_tests_imports_no_sdk():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_TEST_MODULE.format(sdks=SDKS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == []
