"""Where uploaded captures live, behind a small interface (``CaptureStore``) so that another
database can be added without touching the views. ``open_store(url)`` picks the backend from a
database URL: ``sqlite:///path/to/streamscope.db`` (the default, in the data directory) or
``postgresql://...`` (docs/scaling.md)."""

from __future__ import annotations

from .base import CaptureRecord, CaptureStore, NewCapture, hash_token, new_id, new_token
from .factory import open_store

__all__ = [
    "CaptureRecord",
    "CaptureStore",
    "NewCapture",
    "hash_token",
    "new_id",
    "new_token",
    "open_store",
]
