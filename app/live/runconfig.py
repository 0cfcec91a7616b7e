"""A run's request from the page's ``start`` message (docs/protocol.md) or ``/api/models``:
checked field by field, with a clear message for the first thing wrong, and written as the
chosen API's request (apis.py). The key is added by the service (service.py), which alone
reads server variables."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .apis import Api, api_named
from .request import RunRequest

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
    base_url = config.get("base_url")
    if (
        not isinstance(base_url, str)
        or urlsplit(base_url).scheme not in ("http", "https")
        or not urlsplit(base_url).hostname
    ):
        raise RunConfigError("base_url must be an http(s) URL, e.g. http://localhost:8000/v1")
    return base_url


def headers_of(config: dict[str, Any]) -> dict[str, str]:
    headers = config.get("headers") or {}
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise RunConfigError("headers must be an object of text values")
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
