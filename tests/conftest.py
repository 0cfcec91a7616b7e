"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest

from app.storage import open_store

from .fake_upstream import FakeUpstream
from .postgres_server import PostgresServer, binaries


@pytest.fixture(scope="module")
def fake():
    """The fake OpenAI-compatible upstream on a free loopback port, for one test module."""
    server = FakeUpstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def postgres():
    """A PostgreSQL server the tests start, for one test module."""
    if binaries() is None:
        pytest.skip("PostgreSQL is not installed here (the README's test command installs it)")
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture
def app(tmp_path):
    """The application in this process, on a store of its own (the Flask tutorial's)."""
    from app.web import create_app

    return create_app({"data_dir": str(tmp_path / "data")})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request, tmp_path):
    """A capture store on SQLite, and on PostgreSQL (integration): the same contract."""
    if request.param == "sqlite":
        opened = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    else:
        opened = open_store(request.getfixturevalue("postgres").url)
    yield opened
    opened.close()


def pytest_collection_modifyitems(items):
    """Everything under tests/browser drives Chromium: mark it, so the fast subset
    (``-m "not browser and not integration"``) leaves it out."""
    for item in items:
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.browser)
