"""The application's services, built once by ``create_app`` and reached through one typed
accessor (the Flask tutorial's ``get_db()``): ``services().store``, ``services().settings``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask, current_app

if TYPE_CHECKING:  # the services' modules reach their services through this one
    from ..conform.service import ConformService
    from ..live.service import LiveService
    from ..proxy.service import ProxyService
    from ..rooms.service import RoomService
    from ..services.results import Results
    from ..services.sources import Sources
    from ..services.uploads import Importer
    from ..settings import Settings
    from ..storage import CaptureStore
    from .bodies import Bodies
    from .workload import Workload
    from .ws.admission import Admission

KEY = "streamscope"


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: CaptureStore
    sources: Sources
    importer: Importer
    live: LiveService
    admission: Admission
    workload: Workload
    bodies: Bodies
    proxy: ProxyService
    rooms: RoomService
    results: Results
    conform: ConformService

    def install(self, app: Flask) -> None:
        app.extensions[KEY] = self


def services() -> Services:
    """The services of the application handling this request."""
    return services_of(current_app)


def services_of(app: Flask) -> Services:
    found: Services = app.extensions[KEY]
    return found
