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
