"""What ``streamscope export`` and the player's download button export (docs/teaching.md,
"Static export"): a capture file read here, a bundled demo, or a capture stored on a server
(fetched through its timeline document, ``/api/captures/<id>/timeline?raw=1``).
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass
from typing import IO, Any

import httpx
import orjson

from ..captures import Limits
from ..captures.ingest import ingest
from ..demos import find
from ..protocol import VERSION
from ..services.documents import write_document
from ..services.errors import NotFound
from ..services.sources import Loaded, Sources
from ..settings import Settings
from .page import export_html, write_export

DEMO_PREFIX = "demos/"
MARKER_FIELDS = ("id", "t", "stream", "event", "label", "note")


class ExportError(Exception):
    """Nothing to export, with why."""


@dataclass(frozen=True)
class Exported:
    html: bytes
    capture_size: int  # the capture's bytes as read or stored
    document_size: int  # its timeline document with raw texts


def public_markers(markers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stored marker as the file keeps it (no creation time)."""
    return [{k: m[k] for k in MARKER_FIELDS if k in m} for m in markers]


def describe(loaded: Loaded) -> str:
    """The export's description: a demo's own (as its page shows it), else what it is."""
    if loaded.info.get("kind") == "demo" and isinstance(loaded.info.get("description"), str):
        return str(loaded.info["description"])
    streams = len(loaded.capture.streams)
    fmt = loaded.capture.format or "capture"
    return f"{fmt} ({streams} stream{'s' if streams != 1 else ''}), replayed in Streamscope."


def write_loaded_export(
    loaded: Loaded, document: IO[bytes], markers: list[dict[str, Any]], out: Any
) -> None:
    """The export of ``loaded`` written to ``out``, from its timeline document with raw texts
    (``document``, read a piece at a time)."""
    write_export(
        out, document, public_markers(markers), title=loaded.title, description=describe(loaded)
    )


def export_loaded(
    loaded: Loaded, settings: Settings, markers: list[dict[str, Any]], capture_size: int
) -> Exported:
    with tempfile.TemporaryFile() as document:
        write_document(loaded, settings, document, raw=True)
        size = document.tell()
        document.seek(0)
        out = io.BytesIO()
        write_loaded_export(loaded, document, markers, out)
    return Exported(out.getvalue(), capture_size, size)


def export_file(
    data: bytes, name: str, settings: Settings, fmt: str | None = None, dialect: str | None = None
) -> Exported:
    capture = ingest(data, fmt, Limits(dialect=dialect), store=False).capture
    if not capture.streams:
        raise ExportError(f"no stream could be read from {name}")
    loaded = Loaded(f"file:{name}", name, capture, {"kind": "file", "name": name})
    return export_loaded(loaded, settings, [], len(data))


def export_demo(name: str, settings: Settings) -> Exported:
    sources = Sources(Limits(), 1)
    try:
        loaded = sources.demo(name)
    except NotFound:
        raise ExportError(f"no demo named {name!r}") from None
    demo = find(name)
    return export_loaded(loaded, settings, [], len(demo.read_bytes()) if demo else 0)


def export_from_server(server: str, capture: str, timeout: float = 60.0) -> Exported:
    """A stored capture (or ``demos/<name>``) from a running Streamscope, by its timeline
    document; the player comes from this installation, which must speak the same protocol."""
    base = server.rstrip("/")
    demo = capture.startswith(DEMO_PREFIX)
    path = f"/api/demos/{capture[len(DEMO_PREFIX) :]}" if demo else f"/api/captures/{capture}"
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        try:
            answer = client.get(f"{base}{path}/timeline", params={"raw": "1"})
            markers = [] if demo else _markers(client, f"{base}{path}/markers")
        except httpx.HTTPError as exc:
            raise ExportError(f"cannot reach {base}: {exc}") from None
    if answer.status_code != 200:
        raise ExportError(
            f"{base}{path}/timeline answered {answer.status_code}: {_message(answer)}"
        )
    document = answer.content
    try:
        parsed = orjson.loads(document)
        head = parsed["messages"][0]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        raise ExportError(f"{base}{path}/timeline is not a timeline document") from None
    if parsed.get("version") != VERSION:
        raise ExportError(
            f"the server speaks protocol version {parsed.get('version')} and this installation "
            f"{VERSION}: export with the same Streamscope version"
        )
    streams = len(head.get("streams", []))
    description = f"{head.get('format') or 'capture'} ({streams} stream{'s' if streams != 1 else ''}), replayed in Streamscope."
    if demo and (found := find(capture[len(DEMO_PREFIX) :])) is not None:
        description = found.description  # a demo keeps its own, as its page shows it
    html = export_html(
        document,
        public_markers(markers),
        title=str(head.get("title", capture)),
        description=description,
    )
    texts = (item.get("text", "") for m in parsed.get("raw", []) for item in m.get("items", []))
    return Exported(html, sum(len(t.encode()) for t in texts), len(document))


def _markers(client: httpx.Client, url: str) -> list[dict[str, Any]]:
    answer = client.get(url)
    if answer.status_code != 200:
        return []
    found = answer.json().get("markers", [])
    return found if isinstance(found, list) else []


def _message(answer: httpx.Response) -> str:
    try:
        return str(answer.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return answer.text[:200]
