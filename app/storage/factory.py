"""Choosing a store from a database URL."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from .base import CaptureStore


def default_url(data_dir: str | Path) -> str:
    return f"sqlite:///{Path(data_dir) / 'streamscope.db'}"


def open_store(url: str) -> CaptureStore:
    scheme = urlsplit(url).scheme
    if scheme == "sqlite":
        from .sqlite import SQLiteStore

        return SQLiteStore(url.removeprefix("sqlite:///").removeprefix("sqlite://"))
    if scheme in ("postgres", "postgresql"):
        from .postgres import PostgresStore

        return PostgresStore(url)
    raise ValueError(
        f"unsupported database URL scheme {scheme!r} (use sqlite:/// or postgresql://)"
    )
