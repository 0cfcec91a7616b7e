"""``--server URL``: each case's captures uploaded to a Streamscope server (``POST
/api/captures``, docs/conform.md), so that each has a share link; one upload at a time per case,
each capped by a deadline. A server that refuses or cannot be reached is said in the case's
``shared`` entries, never a failure of the case."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

UPLOAD_TIMEOUT_S = 30.0


def upload(
    server: str, title: str, capture: bytes, timeout: float = UPLOAD_TIMEOUT_S
) -> dict[str, Any]:
    """``{"url", "delete_token"}`` of the stored capture, or ``{"url": None, "error"}``."""
    url = server.rstrip("/") + "/api/captures"
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            answer = client.post(
                url,
                content=capture,
                params={"title": title, "format": "timed"},
                headers={"Content-Type": "application/x-ndjson"},
            )
    except httpx.HTTPError as exc:
        return {"url": None, "error": f"cannot upload to {server}: {exc or type(exc).__name__}"}
    try:
        body = orjson.loads(answer.content)
    except orjson.JSONDecodeError:
        body = None
    if answer.status_code != 201 or not isinstance(body, dict) or not body.get("url"):
        said = body.get("error") if isinstance(body, dict) else None
        message = said.get("message") if isinstance(said, dict) else answer.text[:200]
        return {"url": None, "error": f"{server} answered HTTP {answer.status_code}: {message}"}
    return {"url": str(body["url"]), "delete_token": body.get("delete_token")}
