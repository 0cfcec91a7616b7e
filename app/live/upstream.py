"""One request to an upstream API, streamed with httpx, every read timestamped.

* The API record (``apis.py``) says where the request goes and how the key is sent: the
  header it goes in (``Authorization: Bearer``, ``x-api-key``, ``x-goog-api-key``), never the
  URL, and the headers every request of that API carries (``anthropic-version``).

* Deadlines (``Timeouts``, deadlines.py): connect (httpx), the response headers and the
  first byte of the body, idle between reads, and the whole run. httpx fixes a response's read
  timeout when the body starts, so all but the first are kept by a watchdog thread that shuts
  the socket down when one passes; ``cancel()`` uses the same path, so a Stop closes the
  upstream connection at once.
* Retries: before the first byte of the body only, a 429 or 5xx is retried at most twice, after
  ``Retry-After`` when given (capped), else 1 s then 2 s. Never after the first byte.
* Redirects are not followed (httpx would forward ``api-key`` headers to another origin).
* The connection goes to the address the network policy checked: a pinned network backend maps
  the host name to that address, while the URL keeps the name for ``Host`` and TLS.

Everything is reported to a ``Sink``: status changes, the response line, each read with its
offset in ms from the request start (monotonic clock), and exactly one end with a reason
(done, error, cancelled, disconnected) and a message. The request, its deadlines and the sink
are declared in request.py; the stop that hangs up the connection in hangup.py.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
import orjson

from .answers import (
    ERROR_BODY_CAP,
    Answer,
    describe_connect_error,
    is_html,
    parse_retry_after,
)
from .deadlines import Deadlines, httpx_timeout
from .hangup import Hangup
from .pinned import pinned_client
from .policy import Policy, PolicyRefused
from .request import RunRequest, Sink, Timeouts

log = logging.getLogger("streamscope.live")
MAX_ATTEMPTS = 3
MAX_RETRY_WAIT = 30.0
WATCH_INTERVAL = 0.05


class _Abort(Exception):
    pass


class UpstreamRun:
    def __init__(
        self,
        request: RunRequest,
        sink: Sink,
        policy: Policy,
        timeouts: Timeouts = Timeouts(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.request = request
        self.sink = sink
        self.policy = policy
        self.timeouts = timeouts
        self.clock = clock
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._hangup = Hangup()
        self._deadlines = Deadlines(timeouts, 0.0, "run")  # its start: when run() starts

    # ------------------------------------------------------------------ control
    def cancel(self) -> None:
        self.stop("cancelled", "stopped by the user")

    def stop(self, reason: str, message: str) -> None:
        """End the run now, with this reason (the first stop wins): the socket is shut down,
        a retry wait is cut short, and the sink's end says ``reason`` and ``message``."""
        self._hangup.stop(reason, message)
        self._cancel.set()

    def _ms(self) -> float:
        return round((self.clock() - self._deadlines.start) * 1000, 3)

    def _watch(self) -> None:
        while not self._done.wait(WATCH_INTERVAL):
            passed = self._deadlines.passed(self.clock())
            if passed is not None:
                self._hangup.stop("error", passed)

    # ------------------------------------------------------------------ the run
    def run(self) -> None:
        self._deadlines.start = self.clock()
        watchdog = threading.Thread(target=self._watch, name="upstream-watchdog", daemon=True)
        watchdog.start()
        try:
            reason, message = self._attempts()
        except _Abort:
            reason, message = self._hangup.reason() or ("error", "aborted")
        except Exception:  # a bug must not leave the run's viewers without an end
            log.exception("live run failed")
            reason, message = "error", "the server failed during the run; it has been logged"
        finally:
            self._done.set()
        self.sink.end(self._ms(), reason, message)

    def _client(self, address: str) -> httpx.Client:
        timeout = httpx_timeout(self.timeouts)  # reads: a backstop, the watchdog keeps time
        return pinned_client(self.request.url, address, timeout, self._hangup.keep)

    def _attempts(self) -> tuple[str, str | None]:
        parts = urlsplit(self.request.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "error", f"not an http(s) URL: {self.request.base_url}"
        try:
            address = self.policy.resolve(
                parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
            )
        except PolicyRefused as exc:
            return "error", str(exc)
        headers = self.request.sent_headers()
        body = orjson.dumps(self.request.body)
        with self._client(address) as client:
            for attempt in range(1, MAX_ATTEMPTS + 1):
                self.sink.status(
                    "connecting",
                    f"connecting to {parts.hostname}"
                    + (f" (attempt {attempt})" if attempt > 1 else ""),
                )
                outcome = self._one(client, headers, body, attempt)
                if outcome is not None:
                    return outcome
        return "error", "retries exhausted"

    def _one(
        self, client: httpx.Client, headers: dict[str, str], body: bytes, attempt: int
    ) -> tuple[str, str | None] | None:
        """One attempt; None means "retry"."""
        try:
            request = client.build_request(
                "POST",
                self.request.url,
                content=body,
                headers={**headers, "Content-Type": "application/json"},
            )
            self._deadlines.ask(self.clock())
            response = client.send(request, stream=True)
        except httpx.ConnectTimeout:
            return (
                "error",
                f"could not connect within {self.timeouts.connect:g} s (connect timeout)",
            )
        except httpx.ConnectError as exc:
            return self._hangup.reason() or ("error", describe_connect_error(exc, self.request.url))
        except httpx.ReadTimeout:
            return self._hangup.reason() or (
                "error",
                f"no response headers within {self.timeouts.first_byte:g} s",
            )
        except httpx.HTTPError as exc:
            return self._hangup.reason() or ("error", f"request failed: {exc}")
        try:
            status = response.status_code
            content_type = response.headers.get("content-type", "")
            retry = self._retry_wait(response, attempt)
            if retry is not None:
                self._deadlines.wait()
                response.close()
                self.sink.status(
                    "retrying",
                    f"HTTP {status} from upstream: retrying in {retry:.1f} s (attempt {attempt + 1} of {MAX_ATTEMPTS})",
                )
                if self._cancel.wait(retry):
                    return self._hangup.reason() or ("cancelled", "stopped by the user")
                return None
            self._deadlines.answered(self.clock())  # the first-byte deadline starts again
            self.sink.response(self._ms(), status, content_type)
            if 300 <= status < 400:
                location = response.headers.get("location", "?")
                return (
                    "error",
                    f"the upstream answered HTTP {status} (redirect to {location}); redirects are not followed",
                )
            return self._body(response, status, content_type)
        finally:
            response.close()

    def _retry_wait(self, response: httpx.Response, attempt: int) -> float | None:
        if attempt >= MAX_ATTEMPTS or not (
            response.status_code == 429 or response.status_code >= 500
        ):
            return None
        return min(
            parse_retry_after(response.headers.get("retry-after")) or float(attempt), MAX_RETRY_WAIT
        )

    def _body(
        self, response: httpx.Response, status: int, content_type: str
    ) -> tuple[str, str | None]:
        self.sink.status("streaming", f"HTTP {status}, {content_type or 'no content type'}")
        keep = status >= 400 or is_html(content_type, b"")
        received = bytearray() if keep else None  # the start of an answer that is not a stream
        try:
            for chunk in response.iter_raw():
                self._deadlines.read(self.clock())
                self.sink.read(self._ms(), chunk)
                if received is not None and len(received) < ERROR_BODY_CAP:
                    received += chunk[: ERROR_BODY_CAP - len(received)]
        except (httpx.HTTPError, OSError) as exc:
            aborted = self._hangup.reason()
            if aborted:
                return aborted
            return (
                "disconnected",
                f"the upstream closed the connection mid-stream ({type(exc).__name__})",
            )
        aborted = self._hangup.reason()
        if aborted:
            return aborted
        if received is not None:
            answer = Answer(status, content_type, bytes(received))
            if status >= 400 or answer.html:
                return "error", f"HTTP {status} from upstream: {answer.what('a stream')}"
        return "done", None
