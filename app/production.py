"""``streamscope serve --production``: gunicorn with threaded (gthread) workers, whose idle
threads end (``threadpool.py``).

Each websocket holds one thread for its whole life, so gunicorn's sync worker (one request at a
time) must never serve it. Slow work (websockets, every request with a body, proxied calls and
heavy GETs) is admitted up to ``threads - thread_reserve`` at once per worker and the next is
answered 503 (``web/workload.py``), so the reserve always serves the home page, static files,
probes and the 503 answers themselves, and a full server says so instead of hanging. A request's headers are read
without holding a thread (``ElasticThreadWorker.handle``), so clients that send their headers
slowly cannot take the threads either (docs/security.md, "Threads").

Live runs live in the worker that started them. With several workers, a share link opened on
another worker replays the recording as stored so far; run one worker (many threads) to have
every follower on the live edge, or see docs/scaling.md for fan-out through Redis Streams.
"""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger
from gunicorn.workers.gthread import ThreadWorker

from . import create_app
from .connections import HeadReader, body_unread, linger
from .settings import load
from .threadpool import ElasticThreadPool
from .web import logs


class ElasticThreadWorker(ThreadWorker):
    """gthread, with a pool whose idle threads end (threadpool.py): after a class has left,
    the worker goes back to a few threads instead of keeping one per former viewer. And a
    request's head is gathered without blocking (connections.py): gthread's own ``handle``
    blocks a pool thread on reading the headers of any connection that has sent one byte."""

    idle_timeout = 10.0  # STREAMSCOPE_THREAD_IDLE_S, set before gunicorn forks the workers
    header_timeout = 10.0  # STREAMSCOPE_HEADER_TIMEOUT, likewise

    def get_thread_pool(self) -> ElasticThreadPool:
        return ElasticThreadPool(self.cfg.threads, self.idle_timeout, name="conn")

    def handle(self, conn: Any) -> Any:
        if not self.cfg.is_ssl and not conn.is_http2 and self.cfg.http2_cleartext == "off":
            outcome = HeadReader(self.cfg, self.header_timeout).gather(conn)
            if outcome is not True:
                return outcome  # wait for more on the poller, or close
        outcome = super().handle(conn)
        if outcome is False:
            linger(conn.sock)  # here, not on the worker's main loop (connections.py)
        return outcome

    def _keepalive_after(self, conn: Any, keepalive: bool) -> bool:
        """Close a connection whose body the app left unread, rather than let gthread drain
        it at the client's pace (connections.py; the app reads every body it takes:
        web/bodies.py)."""
        if keepalive and body_unread(conn):
            return False
        return bool(super()._keepalive_after(conn, keepalive))


class FilteredLogger(Logger):
    """gunicorn's own logger, whose handlers get the app's secret filter (web/logs.py): its
    error log can quote a request line, query string included."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.addFilter(logs.SecretFilter())


class StreamscopeServer(BaseApplication):
    def __init__(self, overrides: dict[str, Any], options: dict[str, Any]) -> None:
        self.overrides = overrides
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        logs.configure()
        return create_app(self.overrides)  # in each worker, after the fork


def serve_production(overrides: dict[str, Any], workers: int, threads: int) -> int:
    settings = load(overrides)
    capacity = max(1, threads - settings.thread_reserve)
    ElasticThreadWorker.idle_timeout = settings.thread_idle_s
    ElasticThreadWorker.header_timeout = settings.header_timeout
    overrides = {
        **overrides,
        "ws_capacity": min(settings.ws_capacity, capacity),
        "work_capacity": min(settings.work_capacity, capacity),
    }
    options = {
        "bind": f"{settings.host}:{settings.port}",
        "workers": workers,
        "worker_class": "app.production.ElasticThreadWorker",
        "threads": threads,
        "worker_connections": threads * 4,
        "timeout": 60,
        "graceful_timeout": 15,
        "keepalive": 5,
        "accesslog": None,  # the app logs one JSON line per request itself
        "errorlog": "-",
        "loglevel": "warning",
        "logger_class": "app.production.FilteredLogger",
        "proc_name": "streamscope",
    }
    print(
        f"Streamscope (gunicorn gthread: {workers} worker(s) x {threads} threads, "
        f"{overrides['ws_capacity']} websockets each) on http://{options['bind']}/",
        flush=True,
    )
    StreamscopeServer(overrides, options).run()
    return 0
