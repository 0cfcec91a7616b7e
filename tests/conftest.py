"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest

from .fake_upstream import FakeUpstream


@pytest.fixture(scope="module")
def fake():
    """The fake OpenAI-compatible upstream on a free loopback port, for one test module."""
    server = FakeUpstream().start()
    yield server
    server.stop()


def pytest_collection_modifyitems(items):
    """Everything under tests/browser drives Chromium: mark it, so the fast subset
    (``-m "not browser and not integration"``) leaves it out."""
    for item in items:
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.browser)
