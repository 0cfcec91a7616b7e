"""The live page and the model list (runs themselves start over the websocket)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from ..live.service import PRESETS, RunConfigError
from .errors import BadRequest

live = Blueprint("live", __name__)


@live.get("/live")
def page() -> str:
    service = current_app.extensions["streamscope.live"]
    return render_template(
        "live.html",
        presets=PRESETS,
        key_envs=service.key_envs,
        title="Live: watch an endpoint stream",
        description="Point Streamscope at an OpenAI-compatible endpoint and watch the real stream.",
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
        return jsonify({"models": current_app.extensions["streamscope.live"].models(config)})
    except RunConfigError as exc:
        raise BadRequest(str(exc), code="bad_upstream") from None
