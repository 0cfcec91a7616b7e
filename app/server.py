"""Running the web application: the built-in threaded server (``streamscope serve``)."""

from __future__ import annotations

import sys
from typing import Any

from flask import redirect, request
from werkzeug.serving import make_server
from werkzeug.wrappers import Response

from . import create_app
from .web import logs
from .web.context import services_of


def serve(overrides: dict[str, Any], front: str | None = None) -> int:
    """``front``: where ``/`` sends a visitor (``streamscope proxy``: the proxy page)."""
    app = create_app(overrides)
    if front is not None:

        @app.before_request
        def _front() -> Response | None:
            return redirect(front) if request.path == "/" else None

    settings = services_of(app).settings
    logs.configure()
    server = make_server(settings.host, settings.port, app, threaded=True)
    host, port = server.server_address[:2]  # a str host: make_server binds IP sockets only
    print(f"Streamscope listening on http://{host!s}:{port}/", flush=True)
    print(f"data directory: {settings.data_dir}", flush=True)
    for name, upstream in services_of(app).proxy.upstreams.items():
        print(f"proxy: http://{host!s}:{port}/proxy/{name}/ -> {upstream.url}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
