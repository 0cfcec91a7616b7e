"""The web application: pages, the websocket player endpoint, and (later) the REST API."""

from __future__ import annotations

from typing import Any

from flask import Flask

from ..captures import Limits
from . import config as config_module
from . import errors, security
from .pages import pages
from .resources import web_dir
from .sources import Sources
from .ws import server_options, sock


def create_app(config: dict[str, Any] | None = None) -> Flask:
    settings = config_module.load(config)
    app = Flask(
        "streamscope",
        template_folder=str(web_dir("templates")),
        static_folder=str(web_dir("static")),
        static_url_path="/static",
    )
    app.config["STREAMSCOPE"] = settings
    app.config["MAX_CONTENT_LENGTH"] = settings["max_upload_mb"] * 1024 * 1024
    app.config["SOCK_SERVER_OPTIONS"] = server_options(settings)
    app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 0
    limits = Limits(max_decompressed=settings["max_decompressed_mb"] * 1024 * 1024)
    app.extensions["streamscope.sources"] = Sources(limits, settings["capture_cache"])
    errors.install(app)
    security.install(app)
    app.register_blueprint(pages)
    sock.init_app(app)
    return app
