"""The storage interface and what it stores."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .conform import ConformRecord

ID_BYTES = 18  # 144 bits, 24 URL-safe characters
TOKEN_BYTES = 24
EXPIRY = {"1d": 86400.0, "7d": 7 * 86400.0, "never": None}


def new_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str | None, stored_hash: str) -> bool:
    """Constant-time comparison of a presented delete token with the stored hash."""
    presented = hash_token(token or "")
    return hmac.compare_digest(presented, stored_hash) and bool(token)


@dataclass
class NewCapture:
    """What the upload path hands to the store (bytes already scrubbed)."""

    data: bytes
    title: str
    format: str
    streams: int
    compression: str | None = None
    expires_in: float | None = None
    redacted: list[dict[str, Any]] = field(default_factory=list)
    source: str = "upload"
    dialect: str | None = None  # named at upload (None: detected from the payloads)
    # What was said of the upload before its bytes were stored (diagnostics as JSON: a
    # truncated gzip), which a reading of the stored bytes cannot say again.
    notes: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class CaptureRecord:
    id: str
    title: str
    format: str
    created: float
    size: int
    streams: int
    sha256: str
    expires: float | None
    delete_hash: str
    redacted: list[dict[str, Any]]
    compression: str | None = None
    source: str = "upload"
    dialect: str | None = None
    notes: list[dict[str, Any]] = field(default_factory=list)

    def expired(self, now: float | None = None) -> bool:
        return self.expires is not None and (now or time.time()) >= self.expires

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "format": self.format,
            "created": self.created,
            "size": self.size,
            "streams": self.streams,
            "sha256": self.sha256,
            "expires": self.expires,
            "redacted": self.redacted,
            "compression": self.compression,
            "source": self.source,
            "dialect": self.dialect,
        }


class CaptureStore(Protocol):
    """Every operation is atomic; implementations are safe to share between threads."""

    def add(self, capture: NewCapture) -> tuple[CaptureRecord, str]:
        """Store a capture; returns its record and its delete token (shown once, kept hashed)."""

    def get(self, capture_id: str) -> CaptureRecord | None:
        """The record, or None when absent or expired."""

    def read_bytes(self, capture_id: str) -> bytes:
        """The stored bytes (raises KeyError when absent)."""

    def read_from(self, capture_id: str, start: int) -> bytes:
        """The stored bytes from byte ``start`` on (raises KeyError when absent); what a
        reader following a growing recording has not read yet, at a cost that does not grow
        with what it has."""

    def update(self, capture_id: str, token: str | None, *, title: str) -> CaptureRecord | None:
        """Change the title if the token is right; None when absent; raises PermissionError."""

    def append(
        self, capture_id: str, data: bytes, *, redacted: list[dict[str, Any]] | None = None
    ) -> None:
        """Add bytes at the end (live recordings grow while they stream); ``redacted``, when
        given, is what was removed from the recording so far (as an upload's is kept)."""

    def finish(
        self,
        capture_id: str,
        *,
        streams: int,
        fmt: str,
        redacted: list[dict[str, Any]] | None = None,
    ) -> None:
        """A growing capture is complete (``redacted``: as for ``append``)."""

    def delete(self, capture_id: str, token: str | None) -> bool:
        """Delete if the token is right: True; absent: False; wrong token: PermissionError."""

    def purge_expired(self) -> int:
        """Remove expired captures; returns how many."""

    def add_marker(
        self, capture_id: str, token: str | None, fields: dict[str, Any], limit: int
    ) -> dict[str, Any] | None:
        """Pin a marker (storage/markers.py); None when the capture is absent."""

    def markers(self, capture_id: str) -> list[dict[str, Any]]:
        """A capture's markers, in the order they were added."""

    def delete_marker(self, capture_id: str, token: str | None, marker_id: str) -> bool:
        """Remove one marker if the token is right; False when absent."""

    def document_digest(self, capture_id: str, version: str) -> str | None:
        """The digest of the capture's timeline document at this version, when one was built."""

    def remember_document(self, capture_id: str, version: str, digest: str) -> None:
        """Keep the digest of a document built for this capture (storage/documents.py)."""

    def judge_verdicts(self, capture_id: str) -> dict[str, Any] | None:
        """The client judges' last verdicts on the capture (storage/judges.py), or None."""

    def remember_verdicts(self, capture_id: str, streams: list[list[dict[str, Any]]]) -> None:
        """Keep a run of the judges' verdicts in place of the last."""

    def remember_run_call(
        self, capture_id: str, run: str, key: str, created: float, turn: dict[str, Any] | None
    ) -> None:
        """Keep a proxied call's run (storage/runcalls.py, docs/runs.md)."""

    def recent_run_calls(self, key: str, since: float, limit: int) -> list[dict[str, Any]]:
        """The newest proxied calls of a client and upstream, with their runs."""

    def run_call_ids(self, run: str, limit: int) -> list[str]:
        """The capture ids of a run's calls, oldest first."""

    def add_report(self, planned: list[str], expires_in: float | None) -> tuple[ConformRecord, str]:
        """A conformance report, running (storage/conform.py); its record and delete token."""

    def report(self, report_id: str) -> ConformRecord | None:
        """A conformance report's record, or None when absent or expired."""

    def update_report(
        self,
        report_id: str,
        *,
        state: str | None = None,
        document: dict[str, Any] | None = None,
        error: str | None = None,
        add_capture: str | None = None,
    ) -> bool:
        """Change what is given of a report; False when it is gone."""

    def delete_report(self, report_id: str, token: str | None) -> list[str] | None:
        """Delete a report and its captures if the token is right: their ids; None when
        absent; a wrong token raises PermissionError."""

    def close(self) -> None: ...
