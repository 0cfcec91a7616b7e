"""The recording proxy's web side (docs/proxy.md): ``/proxy/<name>/<rest>`` forwards a call to
the upstream of that name, ``/proxy`` lists the calls as they happen, and
``GET /api/proxy/calls`` gives the same list as JSON.

The proxy's check runs before the slow-work count and before the body is received
(docs/security.md, "Order of the checks on every request"): with the proxy off, its paths are
404; without the token it needs, 403; so a caller without the token never takes a thread's
worth of work nor has its body received.
"""

from __future__ import annotations

from typing import IO

from flask import Blueprint, Flask, Response, g, jsonify, render_template, request

from ...proxy.exchange import Body
from ...proxy.headers import TOKEN_HEADER, to_client
from ...proxy.outgoing import Failure
from ...proxy.runs import run_file, run_view, runs_listing
from ...proxy.service import ProxyService
from ...proxy.upstreams import TOKEN_PARAM, BadTarget, raw_rest, without_token
from .. import bodies
from ..context import services
from ..errors import BadRequest, Forbidden, NotFound, error_body

proxy = Blueprint("proxy", __name__)
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
PREFIX = "/proxy/"
NO_BODY = frozenset({204, 304})


def _service() -> ProxyService:
    return services().proxy


def is_proxy_path(path: str) -> bool:
    """The paths the proxy's check guards: calls, the page, the list."""
    return (
        path == "/proxy"
        or path.startswith(PREFIX)
        or path == "/api/proxy/calls"
        or path == "/api/proxy/runs"
        or path.startswith("/api/proxy/runs/")
    )


@proxy.app_context_processor
def proxy_enabled() -> dict[str, bool]:
    """The header links to the proxy page when the proxy is on."""
    return {"proxy_enabled": _service().enabled}


def presented_token() -> str | None:
    return request.headers.get(TOKEN_HEADER) or request.args.get(TOKEN_PARAM)


def install(app: Flask) -> None:
    @app.before_request
    def _proxy_check() -> None:
        if not is_proxy_path(request.path):
            return
        service = _service()
        if not service.enabled:
            raise NotFound(
                "the recording proxy is off: the operator names its upstreams in "
                "STREAMSCOPE_PROXY_UPSTREAMS (or serve --proxy NAME=URL)",
                code="proxy_off",
            )
        if request.endpoint == "proxy.run_page":
            return  # a page with no data: its script asks the API, with the token
        refused = service.why_locked(presented_token())
        if refused:
            raise Forbidden(refused, code="proxy_token")


def _route(rule: str, rest: str | None = None) -> None:
    proxy.add_url_rule(
        rule,
        view_func=forward,
        methods=METHODS,
        defaults={} if rest is None else {"rest": rest},
        merge_slashes=False,  # the path goes on as the client wrote it
        provide_automatic_options=False,  # OPTIONS is forwarded too
    )


def forward(name: str, rest: str = "") -> Response:
    service = _service()
    upstream = service.upstreams.get(name)
    if upstream is None:
        raise NotFound(
            f"no upstream named {name[:60]!r}; this proxy has {', '.join(service.upstreams)}",
            code="no_upstream",
        )
    environ = request.environ
    spool: IO[bytes] | None = environ.get(bodies.KEY)
    query, _ = without_token(environ.get("QUERY_STRING", ""))
    try:
        exchange = service.exchange(
            upstream,
            method=request.method,
            rest=raw_rest(environ.get("RAW_URI") or environ.get("REQUEST_URI"), name, request.path),
            query=query,
            headers=list(request.headers.items()),
            body=spool.read() if spool is not None else b"",
            client_socket=environ.get("gunicorn.socket") or environ.get("werkzeug.socket"),
            client=request.remote_addr or "?",
            origin=request.host_url,
        )
    except BadTarget as exc:
        raise BadRequest(str(exc), code="bad_proxy_path") from None
    try:
        answer = exchange.open()
    except Failure as failure:
        response = jsonify(error_body(failure.code, failure.message))
        response.status_code = failure.status
        return response
    g.proxied = True  # the upstream's headers, as they were (security.py adds none)
    status = answer.status_code
    if request.method == "HEAD" or status in NO_BODY or status < 200:
        exchange.without_body()
        response = Response(b"", status=status)
    else:
        response = Response(Body(exchange), status=status, direct_passthrough=True)
        held = g.pop("slow_work", None)
        if held is not None:  # the call holds its unit of slow work until it ends,
            exchange.on_end = held.give_back  # after this request's teardown
    response.headers.clear()
    for header, value in to_client(answer.headers.multi_items()):
        response.headers.add(header, value)
    return response


_route("/proxy/<name>/", rest="")
_route("/proxy/<name>/<path:rest>")


@proxy.get("/proxy")
def page() -> Response:
    service = _service()
    response = Response(
        render_template(
            "proxy.html",
            upstreams=[(u.name, u.url) for u in service.upstreams.values()],
            base=request.host_url.rstrip("/"),
            token=bool(service.token),
        )
    )
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"  # the page's URL may hold the token
    return response


@proxy.get("/api/proxy/calls")
def calls() -> Response:
    """The calls, newest first (``app/proxy/calls.py``; every process's: ``shared.py``)."""
    response = jsonify({"calls": _service().listing()})
    response.headers["Cache-Control"] = "no-store"
    return response


@proxy.get("/api/proxy/runs")
def runs() -> Response:
    """The runs of the listed calls, newest first (docs/runs.md)."""
    response = jsonify({"runs": runs_listing(_service().listing())})
    response.headers["Cache-Control"] = "no-store"
    return response


@proxy.get("/api/proxy/runs/<run>")
def run(run: str) -> Response:
    """One run's waterfall: its calls, the gaps between them, the totals (docs/runs.md)."""
    view = run_view(run, _service().listing())
    if view is None:
        raise NotFound(f"no listed call is in the run {run[:100]!r}", code="no_run")
    response = jsonify(view)
    response.headers["Cache-Control"] = "no-store"
    return response


@proxy.get("/api/proxy/runs/<run>/export")
def run_export(run: str) -> Response:
    """The run as one JSON Lines file: its calls' timed captures (docs/capture-format.md)."""
    service = _service()
    view = run_view(run, service.listing())
    if view is None:
        raise NotFound(f"no listed call is in the run {run[:100]!r}", code="no_run")
    store = service.live.store
    body = run_file(view, lambda i: store.get(i) is not None, store.read_bytes)
    response = Response(body, mimetype="application/jsonl")
    response.headers["Content-Disposition"] = f'attachment; filename="{run}.run.jsonl"'
    response.headers["Cache-Control"] = "no-store"
    return response


@proxy.get("/proxy/runs/<run>")
def run_page(run: str) -> Response:
    """The run's waterfall, followed live (static/js/run.js)."""
    response = Response(render_template("run.html", run=run))
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
