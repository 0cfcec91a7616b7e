"""A run's request from the page's ``start`` message (docs/protocol.md) or ``/api/models``:
checked field by field, with a clear message for the first thing wrong, and written as the
chosen API's request (apis.py). The key is added by the service (service.py), which alone
reads server variables."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from .apis import Api, api_named
from .headercheck import unsendable
from .request import RunRequest

TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")
FORBIDDEN_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "content-type"}
)


class RunConfigError(ValueError):
    pass


def api_of(config: dict[str, Any]) -> Api:
    try:
        return api_named(config.get("api"))
    except ValueError as exc:
        raise RunConfigError(str(exc)) from None


def base_url_of(config: dict[str, Any]) -> str:
    """The base URL, an http(s) URL with a host and a port that is a number (``http://[::1``
    and ``http://host:x`` are refused with why, never a 500)."""
    base_url = config.get("base_url")
    usage = "base_url must be an http(s) URL, e.g. http://localhost:8000/v1"
    if not isinstance(base_url, str):
        raise RunConfigError(usage)
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 (it raises for a port that is not a number)
    except ValueError as exc:
        raise RunConfigError(f"{usage} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RunConfigError(usage)
    return base_url


def api_key_of(config: dict[str, Any]) -> str | None:
    """The key typed on the page, if any: text that can be sent in a header."""
    key = config.get("api_key")
    if key is not None and not isinstance(key, str):
        raise RunConfigError("api_key must be text")
    why = unsendable("api_key", key) if key else None
    if why is not None:
        raise RunConfigError(why)
    return key or None


def headers_of(config: dict[str, Any]) -> dict[str, str]:
    headers = config.get("headers") or {}
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise RunConfigError("headers must be an object of text values")
    for name, value in headers.items():
        if not TOKEN.fullmatch(name):
            raise RunConfigError(f"header name {name[:40]!r} is not an HTTP token")
        why = unsendable(name, value)
        if why is not None:
            raise RunConfigError(why)
    return {k: v for k, v in headers.items() if k.lower() not in FORBIDDEN_HEADERS}


def unkeyed_request(config: dict[str, Any]) -> RunRequest:
    """The run's request without its key: ``api`` names the API (``chat`` when left out),
    ``body`` is the request in the common (chat-completions) form, written as that API's
    body (apibodies.py)."""
    base_url = base_url_of(config)
    body = config.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body["model"]:
        raise RunConfigError("body must be a JSON object with a model")
    if not isinstance(body.get("messages"), list):
        raise RunConfigError("body.messages must be a list of messages")
    headers = headers_of(config)
    api = api_of(config)
    try:
        sent = api.body(body)
        api.url(base_url, body["model"])
    except ValueError as exc:  # a model that cannot go in the URL
        raise RunConfigError(str(exc)) from None
    except (TypeError, AttributeError) as exc:
        raise RunConfigError(f"body cannot be written for the {api.title} API: {exc}") from None
    return RunRequest(base_url=base_url, body=sent, headers=headers, api=api, model=body["model"])


def preview(request: RunRequest) -> dict[str, Any]:
    """What the request sends, but the user's own headers and the key (the page has them):
    the URL, the API's headers, the header the key goes in and its form, and the body."""
    api = request.api
    return {
        "api": api.name,
        "dialect": api.dialect,
        "url": request.url,
        "headers": {"Accept": api.accept, **dict(api.headers)},
        "key_header": api.auth,
        "key_prefix": api.scheme,
        "body": request.body,
    }
