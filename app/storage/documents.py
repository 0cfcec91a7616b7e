"""The version of each capture's timeline document, kept with the capture (docs/protocol.md,
"The timeline document"): the page names the document by its digest (``?v=``), and reads it
here instead of building the whole document to learn it. One row per capture and document
version (what the document is made from: the protocol, the capture's stored version, the
settings that shape its messages); a capture's rows go with it."""

from __future__ import annotations

from typing import Any


class DocumentsSQL:
    """The document operations of ``SQLStore`` (which provides ``_tx``, ``_db`` and ``_run``)."""

    def _tx(self) -> Any: ...
    def _db(self) -> Any: ...
    def _run(self, db: Any, text: str, params: tuple = ()) -> Any: ...

    def document_digest(self, capture_id: str, version: str) -> str | None:
        row = self._run(
            self._db(),
            "SELECT digest FROM capture_documents WHERE capture_id = ? AND version = ?",
            (capture_id, version),
        ).fetchone()
        return str(row[0]) if row else None

    def remember_document(self, capture_id: str, version: str, digest: str) -> None:
        """Keep the digest of a document built for this capture (nothing when the capture is
        gone meanwhile)."""
        with self._tx() as db:
            if self._run(db, "SELECT 1 FROM captures WHERE id = ?", (capture_id,)).fetchone():
                self._run(
                    db,
                    "INSERT INTO capture_documents (capture_id, version, digest) VALUES (?, ?, ?) "
                    "ON CONFLICT (capture_id, version) DO UPDATE SET digest = excluded.digest",
                    (capture_id, version, digest),
                )
