"""What a live run is asked to do (``RunRequest``: where, what body, which key), the deadlines it
keeps (``Timeouts``) and where it reports (``Sink``): upstream.py runs it (docs/live.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .apis import APIS, Api


@dataclass(frozen=True)
class Timeouts:
    connect: float = 10.0
    first_byte: float = 120.0
    idle: float = 60.0
    total: float = 900.0


@dataclass
class RunRequest:
    """One run's request: ``body`` is the API's own body, as sent; ``model`` names the model
    for APIs that put it in the URL (Gemini), else the body's ``model`` is used."""

    base_url: str
    body: dict[str, Any]
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    api: Api = field(default_factory=lambda: APIS["chat"])
    model: str | None = None

    @property
    def url(self) -> str:
        return self.api.url(self.base_url, self.model or str(self.body.get("model") or ""))

    def sent_headers(self) -> dict[str, str]:
        """Every header the request carries: the API's own, the user's, then the key."""
        fixed = {"Accept": self.api.accept, **dict(self.api.headers)}
        return {**fixed, **self.headers, **self.api.key_header(self.api_key)}

    def secrets(self) -> list[str]:
        """Every credential this request carries, to scrub from anything recorded."""
        found = [self.api_key] if self.api_key else []
        found += [value for value in self.headers.values() if len(value) >= 8]
        return found


class Sink(Protocol):
    def status(self, state: str, message: str) -> None: ...
    def response(self, t: float, status: int, content_type: str) -> None: ...
    def read(self, t: float, data: bytes) -> None: ...
    def end(self, t: float, reason: str, error: str | None) -> None: ...
