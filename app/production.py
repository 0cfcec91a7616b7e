"""``streamscope serve --production``: gunicorn with threaded (gthread) workers, whose idle
threads end (``threadpool.py``).

Each websocket holds one thread for its whole life, so gunicorn's sync worker (one request at a
time) must never serve it. The app admits at most ``threads - reserve`` websockets per worker
and answers the next with 503 (``web/admission.py``), so some threads always remain for pages,
the API and the 503 answers themselves, and a full server says so instead of hanging.

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
from .threadpool import ElasticThreadPool
from .web import config as config_module
from .web import logs

RESERVE = 8  # threads kept for plain HTTP (and 503 answers) when websockets fill the rest


class ElasticThreadWorker(ThreadWorker):
    """gthread, with a pool whose idle threads end (threadpool.py): after a class has left,
    the worker goes back to a few threads instead of keeping one per former viewer."""

    idle_timeout = 10.0  # STREAMSCOPE_THREAD_IDLE_S, set before gunicorn forks the workers

    def get_thread_pool(self) -> ElasticThreadPool:
        return ElasticThreadPool(self.cfg.threads, self.idle_timeout, name="conn")


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
    settings = config_module.load(overrides)
    capacity = max(1, threads - RESERVE)
    ElasticThreadWorker.idle_timeout = settings["thread_idle_s"]
    overrides = {**overrides, "ws_capacity": min(settings["ws_capacity"], capacity)}
    options = {
        "bind": f"{settings['host']}:{settings['port']}",
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
