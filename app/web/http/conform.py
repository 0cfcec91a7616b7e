"""``streamscope conform`` in the page (docs/conform.md, "In the page"): ``/conform``, the
form (as the live page's) that starts a battery and shows its progress; ``/conform/<id>``, a
report to share (the card, each case opening its capture in the player at its first finding);
``/conform/<a>/<b>``, what changed between two reports; and the REST API, ``POST
/api/conform`` (202), ``GET`` and ``DELETE /api/conform/<id>`` (``X-Delete-Token``, as a
capture is deleted). Report text reaches the pages only through Jinja's escaping."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request

from ...conform.cases import CASES
from ...conform.compare import compare as compare_reports
from ...conform.service import ConformError, ConformService
from ...live.apis import APIS
from ...storage.conform import ConformRecord
from ..context import services
from ..errors import BadRequest, Forbidden, NotFound
from .live import offered_presets

conform = Blueprint("conform", __name__)
BATTERY_APIS = tuple(name for name in APIS if any(name in case.apis for case in CASES))


def _service() -> ConformService:
    return services().conform


def _report(report_id: str) -> ConformRecord:
    record = _service().report(report_id)
    if record is None:
        raise NotFound("no such report (deleted, expired, or never run)", code="no_report")
    return record


def _json(record: ConformRecord) -> dict[str, Any]:
    return {**record.public(), "url": f"/conform/{record.id}"}


@conform.get("/conform")
def page() -> str:
    live = services().live
    return render_template(
        "conform.html",
        presets=offered_presets(live, BATTERY_APIS),
        apis=[(APIS[name].name, APIS[name].title, APIS[name].example) for name in BATTERY_APIS],
        key_envs=list(live.keys.urls.items()),
        cases=CASES,
        public=live.policy.public,
    )


@conform.post("/api/conform")
def start() -> tuple[Response, int]:
    config = request.get_json(silent=True)
    if not isinstance(config, dict):
        raise BadRequest(
            'send JSON {"base_url": ..., "model": ..., "api": ..., "only": [...]}',
            code="bad_request",
        )
    try:
        started = _service().start(config)
    except ConformError as exc:
        raise BadRequest(str(exc), code="bad_conform") from None
    body = {**_json(started.record), "delete_token": started.token}
    response = jsonify(body)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Location"] = body["url"]
    return response, 202


@conform.get("/api/conform/<report_id>")
def report_json(report_id: str) -> Response:
    record = _report(report_id)
    response = jsonify(_json(record))
    response.headers["Cache-Control"] = "no-store" if record.state == "running" else "no-cache"
    return response


@conform.delete("/api/conform/<report_id>")
def delete(report_id: str) -> tuple[str, int]:
    try:
        deleted = services().store.delete_report(report_id, request.headers.get("X-Delete-Token"))
    except PermissionError:
        raise Forbidden("wrong or missing X-Delete-Token", code="bad_token") from None
    if deleted is None:
        raise NotFound("no such report", code="no_report")
    for capture_id in deleted:  # its captures went with it
        services().sources.cache.drop(f"capture:{capture_id}")
        services().results.drop(f"capture-{capture_id}")
    return "", 204


def _ms(value: Any) -> str:
    return f"{value:,.0f} ms" if isinstance(value, int | float) else "-"


def _signed_ms(value: Any) -> str:
    return f"{value:+,.0f} ms" if isinstance(value, int | float) else ""


def _opening(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    """Where the case's row opens the player: the capture of the request its first finding is
    in, at that finding (``?finding=<rule>``); the first request's capture at its start when it
    found nothing (or that request's capture is not known)."""
    capture = entry.get("capture")
    capture = capture if isinstance(capture, str) and capture.startswith("/c/") else None
    findings = entry.get("findings") or []
    if not findings:
        return capture, None
    first = findings[0]
    run = first.get("run", 1)
    shared = [s.get("url") for s in entry.get("shared") or [] if isinstance(s, dict)]
    target = capture if run == 1 else (shared[run - 1] if 0 < run <= len(shared) else None)
    if isinstance(target, str) and target.startswith("/c/"):
        return f"{target}?finding={first['rule']}", first["rule"]
    return capture, None


def _rows(document: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The card's rows as the page shows them."""
    rows = []
    for entry in (document or {}).get("cases", []):
        rules = list(dict.fromkeys(f["rule"] for f in entry.get("findings", [])))
        link, first = _opening(entry)
        metrics = entry.get("metrics") or {}
        judges = entry.get("judges") or []
        rows.append(
            {
                "case": entry.get("case"),
                "verdict": entry.get("verdict"),
                "why": entry.get("why"),
                "expects": entry.get("expects"),
                "rules": rules,
                "judges": ", ".join(f"{j.get('client')}: {j.get('verdict')}" for j in judges)
                or "-",
                "ttft": _ms(metrics.get("ttft_ms")),
                "itl": _ms(metrics.get("itl_p50_ms")),
                "link": link,
                "first": first,
            }
        )
    return rows


@conform.get("/conform/<report_id>")
def report_page(report_id: str) -> str:
    record = _report(report_id)
    return render_template(
        "conform_report.html",
        record=record,
        report=record.document or {},
        rows=_rows(record.document),
    )


@conform.get("/conform/<a>/<b>")
def compare_page(a: str, b: str) -> str:
    first, second = _report(a), _report(b)
    compared = compare_reports(first.document or {}, second.document or {})
    for row in compared["cases"]:
        row["ttft_change"] = _signed_ms(row["ttft_ms_change"])
        row["itl_change"] = _signed_ms(row["itl_p50_ms_change"])
        for side in ("a", "b"):
            if row[side] is not None:
                row[side]["ttft"] = _ms(row[side]["ttft_ms"])
                row[side]["itl"] = _ms(row[side]["itl_p50_ms"])
    return render_template(
        "conform_compare.html",
        a=first,
        b=second,
        server_a=(first.document or {}).get("server", {}),
        server_b=(second.document or {}).get("server", {}),
        compared=compared,
    )
