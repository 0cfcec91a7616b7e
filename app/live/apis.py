"""The APIs live mode and ``streamscope record`` speak, one record each (docs/live.md, "APIs").

A record says how to call its API: the path under the base URL (Gemini's names the model),
the header the key goes in and its form, headers every request carries, what the answer is
accepted as, how the run's request becomes its body (``apibodies.py``), where its models are
listed, and which dialect answers (docs/dialects.md). Adding an API is one record here.

Keys go only in headers, never in the URL: a URL is logged, recorded and shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from . import apibodies

GEMINI_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")


@dataclass(frozen=True)
class Api:
    name: str  # as --api and the start message name it
    title: str
    dialect: str  # the dialect that answers (docs/dialects.md)
    path: str  # under the base URL; {model} is the model, for APIs that name it there
    body: Callable[[dict[str, Any]], dict[str, Any]]  # the run's request -> this API's body
    auth: str = "Authorization"  # the header the key goes in
    scheme: str = "Bearer "  # what comes before the key in it
    headers: tuple[tuple[str, str], ...] = ()  # on every request; never secrets
    accept: str = "text/event-stream"
    models: str = "/models"  # GET, under the base URL
    models_list: str = "data"  # the answer's list of models
    models_id: str = "id"  # each model's name in it
    example: str = "http://localhost:8000/v1"  # a base URL, for help texts

    def url(self, base_url: str, model: str) -> str:
        """The request's URL: the base URL's path, then this API's (a query in the base URL,
        such as Azure's api-version, is kept)."""
        path = self.path
        if "{model}" in path:
            path = path.replace("{model}", model_in_path(model))
        return join(base_url, path)

    def key_header(self, key: str | None) -> dict[str, str]:
        """The key in its header, when there is one."""
        return {self.auth: self.scheme + key} if key else {}

    def join_models(self, base_url: str) -> str:
        return join(base_url, self.models)

    def model_names(self, answer: Any) -> list[str] | None:
        """The model names in a models answer (Gemini's without their ``models/``), or None
        when it is not one."""
        listed = answer.get(self.models_list, []) if isinstance(answer, dict) else None
        if not isinstance(listed, list):
            return None
        names = (model.get(self.models_id) for model in listed if isinstance(model, dict))
        return sorted(str(name).removeprefix("models/") for name in names if name)


def model_in_path(model: str) -> str:
    """A model name that can stand in a URL path as it is (no slash, no dot segment)."""
    model = model.removeprefix("models/")
    if not GEMINI_MODEL.fullmatch(model):
        raise ValueError(
            f"the model {model[:60]!r} cannot go in the URL: letters, digits, '.', '_', ':' "
            "and '-' only"
        )
    return model


def join(base_url: str, path: str) -> str:
    base = urlsplit(base_url)
    extra = urlsplit(path)
    query = "&".join(q for q in (base.query, extra.query) if q)
    return urlunsplit((base.scheme, base.netloc, base.path.rstrip("/") + extra.path, query, ""))


OPENAI = "https://api.openai.com/v1"
APIS: dict[str, Api] = {
    api.name: api
    for api in (
        Api(
            "chat",
            "OpenAI Chat Completions",
            "chat-completions",
            "/chat/completions",
            apibodies.chat,
            example=OPENAI,
        ),
        Api(
            "responses",
            "OpenAI Responses",
            "openai-responses",
            "/responses",
            apibodies.responses,
            example=OPENAI,
        ),
        Api(
            "completions",
            "Legacy completions",
            "completions",
            "/completions",
            apibodies.completions,
        ),
        Api(
            "anthropic",
            "Anthropic Messages",
            "anthropic-messages",
            "/v1/messages",
            apibodies.anthropic,
            auth="x-api-key",
            scheme="",
            headers=(("anthropic-version", "2023-06-01"),),
            models="/v1/models",
            example="https://api.anthropic.com",
        ),
        Api(
            "gemini",
            "Gemini (native)",
            "gemini",
            "/v1beta/models/{model}:streamGenerateContent?alt=sse",
            apibodies.gemini,
            auth="x-goog-api-key",
            scheme="",
            models="/v1beta/models?pageSize=1000",
            models_list="models",
            models_id="name",
            example="https://generativelanguage.googleapis.com",
        ),
        Api(
            "ollama",
            "Ollama native chat",
            "ollama",
            "/api/chat",
            apibodies.ollama_chat,
            accept="application/x-ndjson",
            models="/api/tags",
            models_list="models",
            models_id="name",
            example="http://localhost:11434",
        ),
        Api(
            "ollama-generate",
            "Ollama native generate",
            "ollama",
            "/api/generate",
            apibodies.ollama_generate,
            accept="application/x-ndjson",
            models="/api/tags",
            models_list="models",
            models_id="name",
            example="http://localhost:11434",
        ),
    )
}
DEFAULT_API = "chat"


def api_named(name: Any) -> Api:
    """The API of that name (``chat`` when none is given); ValueError names the known ones."""
    if name is None or name == "":
        return APIS[DEFAULT_API]
    if isinstance(name, str) and name in APIS:
        return APIS[name]
    raise ValueError(f"unknown api {str(name)[:40]!r}; known: {', '.join(APIS)}")
