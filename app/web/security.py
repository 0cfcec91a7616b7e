"""Response headers for every page, and the websocket handshake checks.

simple-websocket accepts any Origin and flask-sock completes the upgrade before the view runs,
so the checks run in ``before_request``: a refusal is a plain 403 (or 400) and no 101.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from flask import Flask, Response, g, request

from ..protocol import SUBPROTOCOL
from .context import services, services_of
from .errors import BadRequest, Forbidden

# Scripts only from this origin's /static/ (a path-restricted source, filled in per request):
# an answer the recording proxy relays from /proxy/..., whatever its Content-Type, is never a
# script any page of Streamscope will run (docs/security.md, "Recording proxy").
CSP = (
    "default-src 'none'; script-src {static}; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# An embed may be framed by any page, a local lesson file (``file://``) included: ``*`` matches
# network schemes only, so ``file:`` is named (docs/security.md, docs/teaching.md).
EMBED_CSP = CSP.replace("frame-ancestors 'none'", "frame-ancestors * file:")


def csp_for(template: str) -> str:
    """The policy for this request: scripts from ``<scheme>://<host>/static/`` only (none when
    the Host is not a plain host, as on the answer that refuses it)."""
    host = request.host
    static = f"{request.scheme}://{host}/static/" if _PLAIN_HOST.fullmatch(host) else "'none'"
    return template.replace("{static}", static)


# A proxied answer is served from this origin: whatever the upstream sends (an HTML page that
# repeats the request, say) runs no script here and reads nothing of the origin's (docs/proxy.md).
PROXIED_CSP = "sandbox; default-src 'none'"
WS_PATH = "/ws"
_PLAIN_HOST = re.compile(r"[A-Za-z0-9.\-]+(?::[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?")


def same_origin(origin: str, host: str, allowed: list[str]) -> bool:
    if origin in allowed:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:  # http://[::1 (docs/security.md, "Odd bytes")
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


def check_websocket_handshake(allowed: list[str]) -> None:
    origin = request.headers.get("Origin")
    if origin is not None and not same_origin(origin, request.host, allowed):
        raise Forbidden(f"websocket from a foreign origin ({origin}) refused", code="bad_origin")
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
    if SUBPROTOCOL not in offered:
        raise BadRequest(
            f"this server speaks the websocket subprotocol {SUBPROTOCOL}; offer it",
            code="bad_subprotocol",
        )


def install(app: Flask) -> None:
    allowed = [o.strip() for o in services_of(app).settings.allowed_origins.split(",") if o.strip()]

    @app.before_request
    def _handshake() -> None:
        if request.path == WS_PATH:
            check_websocket_handshake(allowed)
            client = request.remote_addr or "?"
            services().admission.enter(client)  # 503 / 429 before any upgrade
            g.admitted = client

    @app.teardown_request
    def _release(_exc: BaseException | None) -> None:
        client = g.pop("admitted", None)
        if client is not None:
            services().admission.leave(client)

    @app.after_request
    def _headers(response: Response) -> Response:
        if g.get("proxied"):  # a proxied answer keeps the upstream's headers (docs/proxy.md),
            response.headers.add("Content-Security-Policy", PROXIED_CSP)  # with two more
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            return response
        embed = request.path.startswith("/embed/")
        response.headers.setdefault("Content-Security-Policy", csp_for(EMBED_CSP if embed else CSP))
        response.headers["X-Content-Type-Options"] = "nosniff"
        if not embed:
            response.headers.setdefault("X-Frame-Options", "DENY")
        if request.path.startswith(("/c/", "/embed/", "/api/captures/", "/r/", "/compare/")):
            response.headers["Referrer-Policy"] = "no-referrer"
        else:
            response.headers.setdefault("Referrer-Policy", "same-origin")
        return response
