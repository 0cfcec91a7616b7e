"""The web application (Flask): ``create_app`` wires the services (app/services, app/live,
app/proxy, app/rooms) to the blueprints of ``http/`` and the websocket endpoint of ``ws/``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask

from ..captures import Limits
from ..conform.service import ConformService
from ..live.policy import Policy, listens_publicly
from ..live.request import Timeouts
from ..live.service import LiveService
from ..proxy.service import ProxyService
from ..resources import web_dir
from ..rooms.bus import LocalBus
from ..rooms.redis_bus import RedisBus
from ..rooms.service import RoomService
from ..services.results import Results
from ..services.sources import Sources
from ..services.uploads import Importer
from ..settings import Settings, load
from ..storage import CaptureStore, open_store
from ..storage.factory import default_url
from . import bodies, errors, hosts, logs, security, workload
from .bodies import Bodies, BodyRules
from .context import Services
from .http import proxy
from .http.api import api
from .http.compare import compare
from .http.conform import conform
from .http.exported import exported
from .http.judges import judges
from .http.live import live
from .http.markers import markers
from .http.ops import ops
from .http.pages import pages
from .http.rawpages import raw_pages
from .http.rooms import rooms
from .http.rules import rule_pages
from .http.timeline import documents
from .ws.admission import Admission
from .ws.endpoint import server_options, sock


def live_service(store: CaptureStore, settings: Settings) -> LiveService:
    public = settings.public or listens_publicly(settings.host)
    allow = tuple(v.strip() for v in settings.upstream_allow.split(",") if v.strip())
    timeouts = Timeouts(
        connect=settings.connect_timeout,
        first_byte=settings.first_byte_timeout,
        idle=settings.idle_timeout,
        total=settings.total_timeout,
    )
    return LiveService(store, Policy(public=public, allow=allow), timeouts, settings)


def room_service(store: CaptureStore, live_runs: LiveService, settings: Settings) -> RoomService:
    """Presenter rooms on this process's bus, or on Redis across processes when
    ``STREAMSCOPE_REDIS_URL`` is set (docs/scaling.md, "Presenter rooms"); a room may not be
    made of a live run still streaming."""

    def recording(capture: str) -> bool:
        run = live_runs.registry.get(capture)
        return run is not None and not run.finished

    service = RoomService(store, LocalBus(), settings, recording=recording)
    if live_runs.streams is not None:  # rooms span processes on the live runs' Redis
        service.bus = RedisBus(live_runs.streams, stored=service.stored)
    service.rooms.purge_rooms()
    return service


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    settings = load(config)
    app = Flask(
        "streamscope",
        template_folder=str(web_dir("templates")),
        static_folder=str(web_dir("static")),
        static_url_path="/static",
    )
    app.json = bodies.StrictJSON(app)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_upload_mb * 1024 * 1024
    app.config["SOCK_SERVER_OPTIONS"] = server_options(settings)
    app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 0
    limits = Limits(
        max_decompressed=settings.max_decompressed_mb * 1024 * 1024,
        max_line=settings.max_line_mb * 1024 * 1024,
        scrub_seconds=settings.scrub_seconds,
    )
    store = open_store(settings.database_url or default_url(settings.data_dir))
    store.purge_expired()
    live_runs = live_service(store, settings)
    logs.protect(os.environ.get(variable) for variable in live_runs.keys.variables)
    logs.protect([urlsplit(settings.redis_url).password])  # a Redis password never reaches a log
    if settings.otlp_endpoint:  # docs/otel.md: the SDK is loaded only when it is used
        from ..otel.exporter import exporter_of, parse_headers

        logs.protect(parse_headers(settings.otlp_headers).values())  # secrets, never logged
        live_runs.otel = exporter_of(settings)
    proxy_service = ProxyService(settings, live_runs)
    logs.protect(proxy_service.secrets())
    rules = BodyRules(
        settings.max_upload_mb, settings.body_timeout, settings.body_min_rate_kb * 1024
    )
    sources = Sources(limits, settings.capture_cache_mb * 1024 * 1024, store)
    live_runs.remember = sources.remember  # a finished run is cached as its recording reads
    importer = Importer(store, limits, settings.max_concurrent_imports, sources.remember)
    Services(
        settings=settings,
        store=store,
        sources=sources,
        importer=importer,
        live=live_runs,
        admission=Admission(
            settings.ws_capacity,
            settings.ws_per_client,
            settings.ws_rate,
            settings.ws_burst,
            per_room=settings.room_viewers,
        ),
        workload=workload.Workload(settings.work_capacity, settings.work_per_client),
        results=Results(
            Path(settings.data_dir) / "results", settings.results_cache_mb * 1024 * 1024
        ),
        bodies=Bodies(rules, settings.max_receiving, settings.proxy_max_body_mb),
        proxy=proxy_service,
        rooms=room_service(store, live_runs, settings),
        conform=ConformService(store, live_runs, importer, settings),
    ).install(app)
    errors.install(app)
    logs.install(app)
    # The order of the checks before a request is handled (docs/security.md): Host, websocket
    # handshake and admission, the proxy's token, slow-work capacity, then the body is received.
    hosts.install(app)
    security.install(app)
    proxy.install(app)
    workload.install(app)
    bodies.install(app)
    app.register_blueprint(pages)
    app.register_blueprint(rule_pages)
    app.register_blueprint(api)
    app.register_blueprint(markers)
    app.register_blueprint(judges)
    app.register_blueprint(documents)
    app.register_blueprint(raw_pages)
    app.register_blueprint(exported)
    app.register_blueprint(live)
    app.register_blueprint(ops)
    app.register_blueprint(proxy.proxy)
    app.register_blueprint(rooms)
    app.register_blueprint(compare)
    app.register_blueprint(conform)
    sock.init_app(app)
    return app
