"""Streamscope: see what an LLM really sends when it streams.

The domain (``app.domain``, ``app.captures``) is pure: it knows nothing of Flask, httpx or
sockets. The web application is built by ``create_app`` (imported lazily, so that reading a
capture does not import Flask).
"""

from __future__ import annotations

from typing import Any

from .version import __version__

__all__ = ["__version__", "create_app"]


def create_app(config: dict[str, Any] | None = None) -> Any:
    from .web import create_app as _create_app

    return _create_app(config)
