"""One proxied call: its request to the upstream, the answer relayed to the client read by
read, and what its recording and the calls list are told (docs/proxy.md).

Pass-through: each network read from the upstream is handed to the WSGI server as it comes
(one write to the client, its boundaries kept; the server frames it as one HTTP chunk) and only
then recorded, so the recording's work happens while the upstream is silent, never between a
read and its write. Each read is stamped with a monotonic offset from the start of the call,
as live runs do. The status and headers go out as soon as the upstream's arrive.

How a call ends, and what the client sees:

* ``done``: the upstream finished its answer; so does the client.
* ``disconnected``: the upstream broke off mid-answer (a reset, a close before the end); the
  client's connection is shut after what came, so it sees a broken answer too, as the
  upstream sent it.
* ``error``: a deadline passed (docs/proxy.md, "Deadlines"); the client's connection is shut
  the same way.
* ``cancelled``: the client went away; the upstream connection is reset (``hang_up``) at once
  when a write to the client fails, or ``CLIENT_GRACE`` after the watch (``watch.py``) saw the
  client hang up while the upstream was silent.
* ``client_stalled``: a write to the client waited longer than the idle deadline (the client
  stopped reading); the client's socket is shut, and the upstream connection reset.

Before the answer, a call that cannot reach its upstream is answered by the proxy itself
(``Failure``: 502 or 504, the usual error shape); an upstream's own error answer (4xx, 5xx,
a redirect, which is never followed) reaches the client as it was sent.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterator

import httpx

from ..live.answers import ERROR_BODY_CAP, Answer
from ..live.deadlines import Deadlines, httpx_timeout
from ..live.hangup import Hangup, hang_up
from ..live.pinned import pinned_client
from ..live.policy import PolicyRefused
from ..live.redact import Redactor
from ..live.request import Timeouts
from . import headers as proxy_headers
from .calls import Call
from .outgoing import Failure, Outgoing, check_ascii, failure_of
from .recording import Recording
from .watch import Watch, hung_up

log = logging.getLogger("streamscope")
# A client that hangs up while the upstream is silent cancels the call this long after: an SDK
# closes its connection as soon as it has read a stream's last event, and the upstream's end of
# the message (the last chunk) is usually on its way.
CLIENT_GRACE = 0.5
Outcome = tuple[str, str | None]


class Exchange:
    def __init__(
        self,
        outgoing: Outgoing,
        call: Call,
        recording: Recording | None,
        *,
        redactor: Redactor,
        timeouts: Timeouts,
        watch: Watch,
        client_socket: socket.socket | None,
        client: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.outgoing = outgoing
        self.call = call
        self.recording = recording
        self.redactor = redactor  # the call's credentials and key shapes, out of what is shown
        self.timeouts = timeouts
        self.watch = watch
        self.client_socket = client_socket
        self.client_address = client
        self.clock = clock
        self.sent = 0  # bytes relayed to the client
        self.deadlines = Deadlines(timeouts, clock(), "call")  # its start: the call's
        self._client_gone: float | None = None  # when the watch saw the client hang up
        self._lock = threading.Lock()
        self.hangup = Hangup()  # the first reason the call was stopped, and its socket
        self._http: httpx.Client | None = None
        self._response: httpx.Response | None = None
        self._finished = False
        self._kept = bytearray()  # the start of an error answer, for its message
        self._writing: float | None = None  # since when a write to the client has waited
        self.on_end: Callable[[], None] | None = None  # what else ends with the call

    def ms(self) -> float:
        return round((self.clock() - self.deadlines.start) * 1000, 3)

    # ------------------------------------------------------------------ before the answer
    def open(self) -> httpx.Response:
        """Send the request and wait for the answer's head; ``Failure`` when there is none."""
        self.watch.add(self)
        try:
            return self._open()
        except Failure as failure:
            self.finish(*(self.hangup.reason() or ("error", failure.message)))
            raise
        except Exception as exc:  # whatever went wrong, the call ends here, said and released
            log.exception("a proxied call failed before its answer")
            unsent = Failure(
                502, "bad_gateway", f"the request could not be sent ({type(exc).__name__})"
            )
            self.finish("error", unsent.message)
            raise unsent from None

    def _open(self) -> httpx.Response:
        out = self.outgoing
        check_ascii(out.headers)
        try:
            address = out.resolve()
        except PolicyRefused as exc:
            raise Failure(502, "upstream_refused", str(exc)) from None
        timeout = httpx_timeout(self.timeouts)  # reads: a backstop, the watch keeps time
        self._http = pinned_client(out.url, address, timeout, self.hangup.keep)
        request = self._http.build_request(
            out.method, out.url, headers=out.headers, content=out.body or None
        )
        self.deadlines.ask(self.clock())
        try:
            response = self._http.send(request, stream=True)
        except (httpx.HTTPError, OSError) as exc:
            raise self._failure(exc) from None
        self._response = response
        self.deadlines.answered(self.clock())
        self.call.status, self.call.state = response.status_code, "streaming"
        if self.recording is not None:
            self.recording.response(
                self.ms(),
                response.status_code,
                response.headers.get("content-type", ""),
                proxy_headers.recorded(response.headers.multi_items()),
            )
        return response

    def _failure(self, exc: Exception) -> Failure:
        """What the client is answered when the upstream gave no answer."""
        return failure_of(exc, self.outgoing.url, self.timeouts.connect, self.hangup.reason())

    # ------------------------------------------------------------------ the answer
    def relay(self) -> Generator[bytes, None, None]:
        """The answer's body for the WSGI server: an empty write first (the status and headers
        go out now), then each upstream read as it comes, recorded after it was written."""
        assert self._response is not None
        outcome: Outcome | None = None
        try:
            yield b""
            for chunk in self._response.iter_raw():
                t = self.ms()
                self.deadlines.read(self.clock())
                self.sent += len(chunk)
                self._writing = self.clock()
                yield chunk  # the server writes it to the client meanwhile
                self._writing = None
                if self.recording is not None:
                    self.recording.read(t, chunk)
                if self._response.status_code >= 400 and len(self._kept) < ERROR_BODY_CAP:
                    self._kept += chunk[: ERROR_BODY_CAP - len(self._kept)]
            outcome = self.hangup.reason() or self._answered()
        except (httpx.HTTPError, OSError) as exc:
            outcome = self.hangup.reason() or (
                ("error", "the upstream sent no data in time")
                if isinstance(exc, httpx.TimeoutException)
                else (
                    "disconnected",
                    f"the upstream closed the connection mid-answer ({type(exc).__name__})",
                )
            )
            if outcome[0] != "cancelled":
                self._break_client()
        finally:
            self.finish(
                *(
                    outcome
                    or self.hangup.reason()
                    or ("cancelled", "the client went away before the answer was complete")
                )
            )

    def _answered(self) -> Outcome:
        """A whole answer: ``done``, or for an error status ``error`` with the upstream's own
        message (an HTML page named by its title), as live runs say it."""
        assert self._response is not None
        status = self._response.status_code
        if status < 400:
            return "done", None
        content_type = self._response.headers.get("content-type", "")
        answer = Answer(status, content_type, bytes(self._kept))
        return "error", f"HTTP {status} from upstream: {answer.what('a stream')}"

    def without_body(self) -> None:
        """An answer that has no body (to HEAD, a 204 or 304): done once its head is here."""
        self.finish("done", None)

    def _shut_client(self) -> None:
        """Wake a write that waits on a client that does not read: its socket is shut."""
        if self.client_socket is not None:
            with contextlib.suppress(OSError):
                self.client_socket.shutdown(socket.SHUT_RDWR)

    def _break_client(self) -> None:
        """The client sees a broken answer too: its connection is shut after what came, before
        the end of the answer (the last chunk, or the rest of a Content-Length)."""
        if self.client_socket is not None:
            with contextlib.suppress(OSError):
                self.client_socket.shutdown(socket.SHUT_WR)

    # ------------------------------------------------------------------ stopping
    def check(self, now: float) -> None:
        """The watch's look (``watch.py``): deadlines, a client that reads nothing, and a
        client that hung up. While a write to the client waits, the upstream is not read, so
        only the total deadline is the upstream's; past the idle deadline the call is the
        client's to blame (``client_stalled``). A stop while a write waits also shuts the
        client's socket: the write would wait on for as long as the client's kernel holds."""
        writing = self._writing
        if writing is not None and now - writing > self.timeouts.idle:
            idle = self.timeouts.idle
            self.hangup.stop(
                "client_stalled", f"the client read nothing for {idle:g} s (idle timeout)"
            )
        passed = self.deadlines.passed(now) if writing is None else self.deadlines.total(now)
        if passed is not None:
            self.hangup.stop("error", passed)
        if writing is not None and self.hangup.reason() is not None:
            self._shut_client()
        if self._client_gone is None and hung_up(self.client_socket):
            self._client_gone = now
        if self._client_gone is not None and now - self._client_gone >= CLIENT_GRACE:
            self.hangup.stop("cancelled", "the client disconnected")

    def finish(self, reason: str, error: str | None) -> None:
        """The call is over (once): the upstream let go (reset at once unless it finished), the
        recording and the calls list told, one log line."""
        with self._lock:
            if self._finished:
                return
            self._finished = True
        sock = self.hangup.socket
        try:
            self._finish(sock, reason, error)
        finally:
            if self.on_end is not None:
                self.on_end()

    def _finish(self, sock: socket.socket | None, reason: str, error: str | None) -> None:
        self.watch.remove(self)
        if reason != "done" and sock is not None:
            hang_up(sock)
        for closing in (self._response, self._http):
            if closing is not None:
                with contextlib.suppress(Exception):
                    closing.close()
        t = self.ms()
        if self.recording is not None:
            self.recording.end(t, reason, error)
        call = self.call
        call.state, call.ended = reason, self.clock()
        call.error = self.redactor.text(error) if error else None
        call.settle()
        log.info(
            "proxy",
            extra={
                "fields": {
                    "event": "proxy",
                    "upstream": call.upstream,
                    "method": call.method,
                    "path": call.path,
                    "status": call.status,
                    "ended": reason,
                    "ms": round(t, 1),
                    "bytes": self.sent,
                    "recording": call.recording,
                    "client": self.client_address,
                }
            },
        )


class Body:
    """What the WSGI server iterates and closes: the relay, and a ``close`` that ends the call
    whatever happened before (a server may close a body it never started)."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self._relay = exchange.relay()

    def __iter__(self) -> Iterator[bytes]:
        return self._relay

    def close(self) -> None:
        try:
            self._relay.close()
        finally:
            self.exchange.finish(
                *(
                    self.exchange.hangup.reason()
                    or ("cancelled", "the client went away before the answer began")
                )
            )
