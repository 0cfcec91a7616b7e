"""A capture's findings: each stream judged once by the rule catalogue (app/domain/rules,
shown at ``/rules``), kept with the cached capture, for ``GET /api/captures/<id>/findings``. The shape of each finding is
the one the page's ``findings`` messages carry (app/wire.py ``finding_json``)."""

from __future__ import annotations

from typing import Any

from ..wire import findings_fields, stream_findings
from .sources import Loaded


def capture_findings(loaded: Loaded, stall_ms: float) -> list[dict[str, Any]]:
    """Per stream: its index, its findings in its order, and how many of each severity."""
    with loaded.lock:
        if loaded.findings is None:
            loaded.findings = [
                findings_fields(stream.index, stream_findings(stream, stall_ms))
                for stream in loaded.capture.streams
            ]
        found: list[dict[str, Any]] = loaded.findings
        return found
