"""The live page and the model list (runs themselves start over the websocket)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template, request

from ...live.apis import APIS
from ...live.models import ModelsBusy, ModelsError
from ...live.service import PRESETS, LiveService, RunConfigError
from ..context import services
from ..errors import BadRequest, Busy

live = Blueprint("live", __name__)


def _service() -> LiveService:
    return services().live


def offered_presets(service: LiveService, apis: tuple[str, ...] | None = None) -> list[tuple]:
    """The presets (of these APIs) as the form offers them: a preset offers its key variable
    only where the server ties that variable to its URL (or one it is under); choosing a
    variable pins the base URL under the one it is tied to (static/js/endpoint.js)."""
    urls = service.keys.urls
    return [
        (name, api, url, env if env in urls and not service.keys.why_not(env, url) else "")
        for name, api, url, env in PRESETS
        if apis is None or api in apis
    ]


@live.get("/live")
def page() -> str:
    service = _service()
    urls = service.keys.urls
    return render_template(
        "live.html",
        presets=offered_presets(service),
        apis=[(api.name, api.title, api.example) for api in APIS.values()],
        key_envs=list(urls.items()),
        title="Live: watch an endpoint stream",
        description="Point Streamscope at an LLM API and watch the real stream.",
        source_kind="live",
        source_id="",
        embed=False,
        public=service.policy.public,
    )


@live.post("/api/models")
def models() -> Response:
    config = request.get_json(silent=True)
    if not isinstance(config, dict):
        raise BadRequest(
            'send JSON {"base_url": ..., "api_key" or "api_key_env": ...}', code="bad_request"
        )
    try:
        return jsonify({"models": _service().models(config)})
    except RunConfigError as exc:
        raise BadRequest(str(exc), code="bad_upstream") from None
    except ModelsError as exc:
        extra = {"upstream": exc.upstream} if exc.upstream is not None else {}
        raise BadRequest(exc.message, code="bad_upstream", **extra) from None
    except ModelsBusy as exc:
        raise Busy(str(exc)) from None


@live.post("/api/live/preview")
def preview() -> Response:
    """What a run with this request would send (the page's curl preview): checked as a run is,
    with the body written for the chosen API. No key is read or sent back."""
    config = request.get_json(silent=True)
    if not isinstance(config, dict):
        raise BadRequest(
            'send JSON {"api": ..., "base_url": ..., "body": {...}}', code="bad_request"
        )
    try:
        return jsonify(_service().preview(config))
    except RunConfigError as exc:
        raise BadRequest(str(exc), code="bad_run") from None
