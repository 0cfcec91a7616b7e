"""The recording proxy: its upstreams, its token, its calls, and starting one call
(docs/proxy.md).

Off unless ``STREAMSCOPE_PROXY_UPSTREAMS`` names upstreams. With a token
(``STREAMSCOPE_PROXY_TOKEN``) every call and the calls list need it; a public server (the
live runs' network policy: ``app/live/policy.py``) needs one, and its proxy refuses everything
without it (``streamscope serve`` does not even start). Where a call connects: an upstream
configured as an IP address is reached there, as configured; one configured by name is
resolved for each call, checked by the network policy when the server is public (a name that
comes to resolve to a private or metadata address is refused, unless listed in
``STREAMSCOPE_UPSTREAM_ALLOW``) and connected to the checked address, as live runs are.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
import socket
import threading
import time
from typing import Any

import orjson

from ..captures.scrub import scrub_json
from ..domain.callruns import (
    MAX_AGE_S,
    MAX_RECENT,
    Answer,
    Ended,
    Grouper,
    Turn,
    run_name,
    turn_json,
    turn_of,
)
from ..domain.requests import read_request
from ..domain.requests.model import RequestView
from ..live.apis import Api
from ..live.hub import LiveRun
from ..live.redact import Redactor
from ..live.service import LiveService
from ..otel.model import Parent, run_parent
from ..settings import Settings
from ..storage import CaptureRecord
from . import headers as proxy_headers
from .calls import Call, Calls
from .exchange import Exchange
from .outgoing import Outgoing
from .recording import start_recording, too_many_containers
from .shared import SharedCalls
from .upstreams import Upstream, api_of, model_of, parse_upstreams
from .watch import Watch
from .writer import StoreWriter

log = logging.getLogger("streamscope.proxy")


class ProxyService:
    def __init__(self, settings: Settings, live: LiveService) -> None:
        self.settings = settings
        self.live = live
        self.upstreams = parse_upstreams(settings.proxy_upstreams)
        self.token = settings.proxy_token
        self.public = live.policy.public
        self.max_body_mb = settings.proxy_max_body_mb
        self.calls = Calls()
        # With Redis, every process lists every process's calls (shared.py).
        self.shared = SharedCalls(self.calls, live.streams) if live.streams is not None else None
        self.watch = Watch()
        self.writer = StoreWriter()
        self.grouper = Grouper(time.monotonic)  # the runs of recent calls (docs/runs.md)

    @property
    def enabled(self) -> bool:
        return bool(self.upstreams)

    def listing(self) -> list[dict[str, Any]]:
        """The calls, newest first: this process's, and with Redis every other's too."""
        return self.shared.listing() if self.shared is not None else self.calls.listing()

    def why_locked(self, presented: str | None) -> str | None:
        """Why a request may not use the proxy with this token, or None when it may."""
        if not self.token:
            if self.public:
                return (
                    "this server is public, and its recording proxy needs a token: the "
                    "operator sets STREAMSCOPE_PROXY_TOKEN"
                )
            return None
        if presented is None:
            return (
                "the recording proxy needs its token: send it in the X-Streamscope-Proxy-Token "
                "header or as ?proxy_token="
            )
        if not hmac.compare_digest(presented.encode(), self.token.encode()):
            return "wrong proxy token"
        return None

    def secrets(self) -> list[str]:
        """Values no log line may carry."""
        return [self.token] if self.token else []

    def resolver(self, upstream: Upstream) -> Any:
        """How a call to ``upstream`` finds its address (the module's docstring)."""
        host = upstream.host.strip("[]")
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            policy = self.live.policy
            return lambda: policy.resolve(host, upstream.port)
        return lambda: str(literal)

    def exchange(
        self,
        upstream: Upstream,
        *,
        method: str,
        rest: str,
        query: str,
        headers: list[tuple[str, str]],
        body: bytes,
        client_socket: socket.socket | None,
        client: str,
        origin: str | None = None,
    ) -> Exchange:
        """A call, recorded from now on, ready to be opened (``Exchange.open``); ``BadTarget``
        for a path that is not forwarded. ``origin``: this server's URL as the client reached
        it, for the share link of the call's span (docs/otel.md)."""
        url = upstream.target(rest, query)
        path = "/" + rest
        parsed = json_object(body)
        model = model_of(parsed, path)
        call = Call(upstream.name, method, path, model)
        api = api_of(path)
        redactor = Redactor(
            [
                *proxy_headers.credentials(headers),
                *proxy_headers.query_credentials(query),
                *self.secrets(),
            ],
            self.settings.max_line_mb * 1024 * 1024,
        )
        export = Export(self.live, origin)
        call.run_id = self.group(
            call, upstream.name, client, headers, parsed, api, export, redactor
        )
        live = self.live
        recording = start_recording(
            live.store,
            live.registry,
            redactor=redactor,
            url=url,
            source={
                "url": url,
                "kind": "proxy",
                "upstream": upstream.name,
                "method": method,
                "path": path,
            },
            body=body,
            title=f"Proxy {upstream.name}: {method} {path}" + (f" ({model})" if model else ""),
            api=api.name if api else None,
            stall_ms=self.settings.stall_ms,
            max_bytes=live.max_bytes,
            remember=export.stored,
            defer=self.writer,
        )
        if recording is not None:
            call.recording, call.delete_token = recording.capture_id, recording.delete_token
            live.publish(recording.run)
            call.run = recording.run
            recording.on_outcome = lambda outcome: setattr(call, "recording_end", outcome)
        self.calls.add(call)
        outgoing = Outgoing(
            method, url, proxy_headers.to_upstream(headers), body, self.resolver(upstream)
        )
        return Exchange(
            outgoing,
            call,
            recording,
            redactor=redactor,
            timeouts=live.timeouts,
            watch=self.watch,
            client_socket=client_socket,
            client=client,
        )

    def group(
        self,
        call: Call,
        upstream: str,
        client: str,
        headers: list[tuple[str, str]],
        body: Any,
        api: Api | None,
        export: Export,
        redactor: Redactor,
    ) -> str | None:
        """The call's run (docs/runs.md): the one ``X-Streamscope-Run`` names, else the run of
        the recent call of the same client and upstream it continues, looked for now (so the
        run's page shows the call while it streams) and again once it ended (its predecessor
        has surely ended by then), else a new one, given at its end."""
        named = run_name(
            next((v for k, v in headers if k.lower() == proxy_headers.RUN_HEADER.lower()), None)
        )
        dialect = api.dialect if api is not None else None
        view = read_request(body, dialect) if isinstance(body, dict) else None
        previous = body.get("previous_response_id") if isinstance(body, dict) else None
        previous = previous if isinstance(previous, str) else None
        key = f"{client} {upstream}"

        def ended(facts: Ended | None) -> None:
            answer = facts.answer if facts is not None else Answer()
            if call.run_id is None and self.shared is not None:
                self._recent_elsewhere(key, view, previous)
            call.run_id = run = self.grouper.assign(
                key,
                call.recording or str(call.number),
                view,
                answer,
                at=call.clock,
                run=call.run_id,
                previous_response=previous,
                new_run=lambda: "run-" + secrets.token_hex(6),
            )
            first = self.grouper.size(run) == 1
            export.grouped(run_parent(run, root=first))
            if call.recording is not None:
                turn = Turn(call.recording, run, view, answer, call.clock) if view else None
                self.writer(lambda: self._keep_run(call, run, key, turn, redactor))

        call.on_ended = ended
        return named or self.grouper.match(key, view, previous)

    def _recent_elsewhere(self, key: str, view: RequestView | None, previous: str | None) -> None:
        """With other processes (Redis), the recent calls of ``key`` they served, from the
        store, for the grouper to continue (docs/runs.md, "Across processes")."""
        if self.grouper.match(key, view, previous) is not None:
            return
        wall, clock = time.time(), time.monotonic()
        try:
            rows = self.live.store.recent_run_calls(key, wall - MAX_AGE_S, MAX_RECENT)
        except Exception:
            log.exception("the recent calls of other processes could not be read")
            return
        for row in rows:
            at = clock - (wall - row["created"])
            turn = turn_of(row["capture_id"], row["run"], at, row["turn"])
            if turn is not None:
                self.grouper.add(key, turn)

    def _keep_run(
        self, call: Call, run: str, key: str, turn: Turn | None, redactor: Redactor
    ) -> None:
        """The call's run in the store, with what later calls are matched against, scrubbed
        as the recording's request is (the call's credentials, key-shaped strings)."""
        if call.recording is None:
            return
        try:
            kept = None
            if turn is not None:
                swept = orjson.loads(redactor.whole(orjson.dumps(turn_json(turn))))
                kept = scrub_json(swept, redactor.redactions)
            self.live.store.remember_run_call(call.recording, run, key, call.started, kept)
        except Exception:
            log.exception("a proxied call's run could not be stored; the call is listed with it")


class Export:
    """A call's export waits for both its recording in the store and its run (given once the
    call ended): whichever comes second hands it to ``LiveService.stored``, its span a child
    of the run's root span (docs/runs.md)."""

    def __init__(self, live: LiveService, origin: str | None) -> None:
        self.live = live
        self.origin = origin
        self._lock = threading.Lock()
        self._stored: tuple[CaptureRecord, LiveRun] | None = None
        self._parent: Parent | None = None
        self._grouped = False

    def stored(self, record: CaptureRecord, run: LiveRun) -> None:
        with self._lock:
            self._stored = (record, run)
            ready = self._grouped
        if ready:
            self._send()

    def grouped(self, parent: Parent | None) -> None:
        with self._lock:
            self._parent, self._grouped = parent, True
            ready = self._stored is not None
        if ready:
            self._send()

    def _send(self) -> None:
        with self._lock:
            stored, self._stored = self._stored, None
        if stored is not None:
            self.live.stored(*stored, self.origin, self._parent)


def json_object(body: bytes) -> Any:
    """The body as JSON when it is an object (for its model), else None."""
    if body.lstrip()[:1] != b"{" or too_many_containers(body):
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
