"""Listing an upstream's models for the live page (``POST /api/models``), at a bounded cost
(docs/security.md, "Live runs").

* One total deadline for connecting, the headers and the body (``STREAMSCOPE_MODELS_TIMEOUT``):
  a timer shuts the socket down when it passes, so an upstream that sends one byte a second
  cannot hold the server's thread for longer.
* At most ``MODELS_BODY_CAP`` bytes of the answer are read; a larger one is refused.
* At most ``STREAMSCOPE_MAX_CONCURRENT_MODELS`` lists at once; more get ``ModelsBusy`` at once.
* A failure says what the upstream answered (``Answer``: status, content type, HTML title, the
  start of the body), redacted, so the page can show it as text.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from .answers import Answer, describe_connect_error
from .apis import APIS, Api
from .pinned import pinned_client
from .redact import Redactor

MODELS_BODY_CAP = 1024 * 1024


class ModelsError(Exception):
    """The models could not be listed; ``upstream`` is what the upstream answered, if it did."""

    def __init__(self, message: str, upstream: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.upstream = upstream


class ModelsBusy(Exception):
    pass


class Deadline:
    """Shuts the request's socket down when the time is up."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.passed = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def keep(self, sock: socket.socket) -> None:
        with self._lock:
            self._socket = sock
            passed = self.passed
        if passed:
            self._shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            sock = self._socket
        if sock is not None:
            self._shutdown(sock)

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class ModelLister:
    def __init__(self, deadline: float, concurrent: int) -> None:
        self.deadline = deadline
        self._slots = threading.BoundedSemaphore(max(1, concurrent))
        self.concurrent = max(1, concurrent)

    def list(
        self, base_url: str, address: str, key: str | None, api: Api = APIS["chat"]
    ) -> list[str]:
        if not self._slots.acquire(blocking=False):
            raise ModelsBusy(
                f"{self.concurrent} model lists are being fetched already "
                "(STREAMSCOPE_MAX_CONCURRENT_MODELS); try again in a few seconds"
            )
        try:
            return Fetch(base_url, key, self.deadline, api).run(address)
        finally:
            self._slots.release()


class Fetch:
    """One ``GET`` of the API's models list (``{base_url}/models`` for OpenAI-style APIs,
    apis.py), within the deadline and the body cap, the key in the API's own header."""

    def __init__(
        self, base_url: str, key: str | None, deadline: float, api: Api = APIS["chat"]
    ) -> None:
        self.api = api
        self.url = api.join_models(base_url)
        self.where = urlsplit(base_url).netloc.rpartition("@")[2]
        self.key = key
        self.deadline = deadline
        self.redactor = Redactor([key] if key else [])
        self.answer: Answer | None = None  # once the headers came
        self.received = bytearray()

    def run(self, address: str) -> list[str]:
        headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
        headers |= dict(self.api.headers) | self.api.key_header(self.key)
        with Deadline(self.deadline) as deadline:
            client = pinned_client(self.url, address, self.deadline, deadline.keep)
            try:
                with client, client.stream("GET", self.url, headers=headers) as response:
                    self._read(response)
            except (httpx.HTTPError, OSError) as exc:
                if deadline.passed:
                    raise self._error(
                        f"no complete answer from {self.where} within {self.deadline:g} s "
                        "(STREAMSCOPE_MODELS_TIMEOUT)"
                    ) from None
                if self.answer is not None:
                    raise self._error(
                        f"HTTP {self.answer.status} from {self.where}: the connection failed "
                        f"while reading the answer ({type(exc).__name__})"
                    ) from None
                raise self._error(
                    f"could not list models: {describe_connect_error(exc, self.url)}"
                ) from None
        return self._models()

    def _read(self, response: httpx.Response) -> None:
        status = response.status_code
        self.answer = Answer(status, response.headers.get("content-type", ""), b"")
        for chunk in response.iter_bytes():
            self.received += chunk
            if len(self.received) > MODELS_BODY_CAP:
                raise self._error(
                    f"HTTP {status} from {self.where}: the answer is over "
                    f"{MODELS_BODY_CAP // 1024} KiB, far more than a models list; not read further"
                )

    def _models(self) -> list[str]:
        answer = self.answer
        assert answer is not None
        answer.body = bytes(self.received)
        if answer.status != 200 or answer.html:
            raise self._error(
                f"HTTP {answer.status} from {self.where}: {answer.what('the models list')}"
            )
        try:
            names = self.api.model_names(orjson.loads(answer.body))
        except orjson.JSONDecodeError:
            names = None
        if names is None:
            raise self._error(
                f"HTTP 200 from {self.where}: not the models list "
                f"(JSON with a {self.api.models_list} list)"
            )
        return names

    def _error(self, message: str) -> ModelsError:
        redact = self.redactor.text
        upstream = None
        if self.answer is not None:
            self.answer.body = bytes(self.received[:MODELS_BODY_CAP])
            upstream = self.answer.to_json(redact)
        return ModelsError(redact(message), upstream)
