"""Conformance batteries run from the page (docs/conform.md, "In the page"): ``POST
/api/conform``'s request checked as a live run's is (the base URL, the API, the key typed or a
server variable tied to that URL, the network policy of a public server), the battery run in a
thread of its own, each case's answer stored as a capture (through the upload path, so that it
opens in the player), and the report document rewritten after each case, so that any process
serving ``GET /api/conform/<id>`` shows the progress.

Every resource is capped: batteries at once in a process (``STREAMSCOPE_MAX_CONFORM_RUNS``,
more are refused as busy), cases at once in a battery (``CONCURRENCY``), a deadline per case
(``CASE_TIMEOUT_S``, no longer than a live run's), a request's recording
(``STREAMSCOPE_MAX_LIVE_MB``, as a live run's: past it the request is stopped, ``too_large``),
the client judges not run (seconds and a
process each: ``streamscope conform --judges`` runs them)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from ..live.policy import PolicyRefused
from ..live.runconfig import RunConfigError, api_of, base_url_of
from ..live.service import LiveService
from ..services.errors import Busy, StreamscopeError
from ..services.uploads import Importer
from ..settings import Settings
from ..storage import CaptureStore
from ..storage.base import EXPIRY
from ..storage.conform import ConformRecord
from .card import document
from .command import BadInput, chosen
from .judge import CaseReport
from .model import Case
from .runner import Battery, Options, run_battery

log = logging.getLogger("streamscope.conform")
CONCURRENCY = 2
CASE_TIMEOUT_S = 60.0
MAX_MODEL = 256


class ConformError(ValueError):
    """A request that cannot start a battery, said in a sentence."""


@dataclass
class Started:
    record: ConformRecord
    token: str


def names_of(value: Any, field: str) -> str:
    """``only``/``skip`` as the command line takes them: a list of names, or them
    comma-separated."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and len(value) <= 64:
        return ",".join(value)
    raise ConformError(f"{field} must be a list of case names")


def stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class ConformService:
    def __init__(
        self, store: CaptureStore, live: LiveService, importer: Importer, settings: Settings
    ) -> None:
        self.store = store
        self.live = live
        self.importer = importer
        self.settings = settings
        self._slots = threading.BoundedSemaphore(max(1, settings.max_conform_runs))

    def options(self, config: dict[str, Any]) -> tuple[Options, list[Case], str]:
        """The battery's options, its cases and the captures' expiry, or ConformError."""
        try:
            api = api_of(config)
            cases = chosen(
                api.name, names_of(config.get("only"), "only"), names_of(config.get("skip"), "skip")
            )
            base_url = base_url_of(config)
            model = config.get("model")
            if not isinstance(model, str) or not model.strip() or len(model) > MAX_MODEL:
                raise ConformError(f"model must be a model's name (at most {MAX_MODEL} characters)")
            key = self.live.api_key(config, base_url)
        except (RunConfigError, BadInput) as exc:
            raise ConformError(str(exc)) from None
        expires = config.get("expires") or "never"
        if not isinstance(expires, str) or expires not in EXPIRY:
            raise ConformError(f"expires must be one of {', '.join(EXPIRY)}")
        parts = urlsplit(base_url)
        try:  # refused at once rather than in every case (each request is checked again)
            self.live.policy.resolve(
                parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
            )
        except PolicyRefused as exc:
            raise ConformError(str(exc)) from None
        except (ValueError, OSError) as exc:
            raise ConformError(f"base_url: {exc}") from None
        options = Options(
            base_url=base_url,
            api=api,
            model=model.strip(),
            api_key=key,
            concurrency=CONCURRENCY,
            case_timeout_s=min(CASE_TIMEOUT_S, self.settings.total_timeout),
            stall_ms=self.settings.stall_ms,
            policy=self.live.policy,
            max_bytes=int(self.settings.max_live_mb * 1_000_000),
        )
        return options, cases, expires

    def start(self, config: dict[str, Any]) -> Started:
        """A report, running; raises ConformError, or Busy when enough batteries run."""
        options, cases, expires = self.options(config)
        if not self._slots.acquire(blocking=False):
            raise Busy(
                f"{self.settings.max_conform_runs} conformance batteries are running on this "
                "server (STREAMSCOPE_MAX_CONFORM_RUNS); try again when one has ended",
                code="conform_busy",
            )
        try:
            record, token = self.store.add_report([c.name for c in cases], EXPIRY[expires])
            thread = threading.Thread(
                target=self._run,
                args=(record.id, options, cases, expires),
                name=f"conform-{record.id[:6]}",
                daemon=True,
            )
            thread.start()
        except BaseException:
            self._slots.release()
            raise
        return Started(record, token)

    def _run(self, report_id: str, options: Options, cases: list[Case], expires: str) -> None:
        try:
            self._battery(report_id, options, cases, expires)
        except Exception as exc:  # the report says so; the server goes on
            log.exception("conform report %s failed", report_id)
            self.store.update_report(
                report_id, state="failed", error=f"the battery could not run ({type(exc).__name__})"
            )
        finally:
            self._slots.release()

    def _battery(self, report_id: str, options: Options, cases: list[Case], expires: str) -> None:
        started, began = stamp(), time.monotonic()
        order = {case.name: at for at, case in enumerate(cases)}
        done: list[CaseReport] = []
        gone = threading.Event()  # the report was deleted: the cases not started are not run

        def keep(title: str, capture: bytes) -> dict[str, Any]:
            """A case's capture, stored as an upload is; its player URL (never its token)."""
            try:
                with self.importer.slot():
                    imported = self.importer.run(
                        capture, title=title, expires=expires, fmt="timed", name=None
                    )
            except StreamscopeError as exc:
                return {"url": None, "error": exc.message}
            capture_id = imported.record.id
            if not self.store.update_report(report_id, add_capture=capture_id):
                gone.set()
                self.store.delete(capture_id, imported.token)  # the report went meanwhile
                return {"url": None, "error": "the report was deleted"}
            return {"url": f"/c/{capture_id}"}

        def progress(report: CaseReport) -> None:
            done.append(report)
            done.sort(key=lambda r: order.get(r.case, len(order)))
            so_far = Battery(list(done), True, None, (time.monotonic() - began) * 1000)
            if not self.store.update_report(report_id, document=document(options, so_far, started)):
                gone.set()

        options.share = keep
        options.cancelled = gone.is_set
        battery = run_battery(cases, options, progress)
        self.store.update_report(
            report_id, state="done", document=document(options, battery, started)
        )

    def report(self, report_id: str) -> ConformRecord | None:
        return self.store.report(report_id)
