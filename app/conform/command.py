"""``streamscope conform``: its arguments, the battery chosen, run, printed; the exit status
(0: no case failed, 1: one did, 2: the server could not be reached at all, or the arguments
are wrong). Bad input is said in one line, never a traceback."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from ..jsonout import write as write_document
from ..judges.capture import judge_stream
from ..judges.runner import Caps, node_dir
from ..live.apis import Api, api_named
from ..live.models import Fetch, ModelsError
from ..live.policy import Policy, PolicyRefused
from ..settings import load
from .arguments import MAX_CONCURRENCY
from .card import document, junit, text
from .cases import CASES
from .judge import CaseReport, Judge
from .model import Case
from .runner import Options, run_battery
from .share import upload

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNREACHABLE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells expect
MODELS_TIMEOUT_S = 15.0


class BadInput(Exception):
    pass


def names(value: str | None) -> list[str]:
    return [name.strip() for name in (value or "").split(",") if name.strip()]


def chosen(api: str, only: str | None, skip: str | None) -> list[Case]:
    known = {case.name for case in CASES}
    for name in names(only) + names(skip):
        if name not in known:
            raise BadInput(f"unknown case {name!r}; the cases: {', '.join(c.name for c in CASES)}")
    cases = [case for case in CASES if api in case.apis]
    if not cases:
        raise BadInput(f"no case of the battery speaks --api {api} yet (docs/conform.md)")
    if only:
        cases = [case for case in cases if case.name in names(only)]
    cases = [case for case in cases if case.name not in names(skip)]
    if not cases:
        raise BadInput("--only and --skip leave no case to run")
    return cases


def options_of(args: argparse.Namespace) -> Options:
    if not args.base_url:
        raise BadInput("--base-url is required: the server to test, e.g. http://localhost:8000/v1")
    parts = urlsplit(args.base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadInput(f"not an http(s) URL: {args.base_url}")
    key = None
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise BadInput(f"{args.api_key_env} is not set")
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        raise BadInput(f"--concurrency is from 1 to {MAX_CONCURRENCY}")
    if not 0 < args.case_timeout <= 3600:
        raise BadInput("--case-timeout is a number of seconds, above 0 and at most 3600")
    out = None
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BadInput(f"cannot write to {args.out}: {exc.strerror or exc}") from None
    judge = client_judge(args.data_dir) if args.judges else None
    server = args.server.rstrip("/") if args.server else None
    if server is not None:
        where = urlsplit(server)
        if where.scheme not in ("http", "https") or not where.hostname:
            raise BadInput(f"--server is not an http(s) URL: {args.server}")
    api = api_named(args.api)
    return Options(
        base_url=args.base_url,
        api=api,
        model=args.model or first_model(api, args.base_url, key),
        api_key=key,
        concurrency=args.concurrency,
        case_timeout_s=args.case_timeout,
        out=out,
        stall_ms=args.stall_ms,
        judge=judge,
        share=None if server is None else functools.partial(upload, server),
    )


def first_model(api: Api, base_url: str, key: str | None) -> str:
    """The first model the server's models list names (``--model`` not given)."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = Policy(public=False).resolve(parts.hostname or "", port)
        names = Fetch(base_url, key, MODELS_TIMEOUT_S, api).run(address)
    except (ModelsError, PolicyRefused, OSError) as exc:
        raise BadInput(
            f"no --model, and the server's models list could not be read: {exc}"
        ) from None
    if not names:
        raise BadInput("no --model, and the server's models list names none")
    return names[0]


def client_judge(data_dir: str | None) -> Judge:
    """The client judges with the settings' caps and the Node judges where ``judges install``
    put them (as ``check --judges`` runs them)."""
    settings = load({"data_dir": data_dir})
    caps = Caps(timeout_s=settings.judges_timeout_s, memory_mb=settings.judges_memory_mb)
    folder = node_dir(settings.data_dir)
    return lambda stream: judge_stream(stream, caps, folder)


def cmd_conform(args: argparse.Namespace) -> int:
    try:
        cases = chosen(args.api, args.only, args.skip)
        if args.list:
            for case in cases:
                print(f"{case.name:<17} {case.expects}")
            return EXIT_OK
        options = options_of(args)
    except BadInput as exc:
        print(f"streamscope conform: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE
    started = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")

    def progress(report: CaseReport) -> None:
        print(f"[{report.case}: {report.verdict}]", file=sys.stderr, flush=True)

    try:
        battery = run_battery(cases, options, progress)
    except KeyboardInterrupt:
        print("streamscope conform: interrupted (Ctrl-C); no report", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        write_document(document(options, battery, started), sys.stdout.buffer.write)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(text(options, battery))
    failed_uploads = [s["error"] for r in battery.reports for s in r.shared if s.get("error")]
    if failed_uploads:
        print(
            f"streamscope conform: {len(failed_uploads)} upload(s) failed: {failed_uploads[0]}",
            file=sys.stderr,
        )
    if args.junit:
        try:
            Path(args.junit).write_bytes(junit(options, battery))
        except OSError as exc:
            print(
                f"streamscope conform: cannot write {args.junit}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return EXIT_UNREACHABLE
    if not battery.reached:
        print(
            f"streamscope conform: cannot reach {options.shown_url}: {battery.error}",
            file=sys.stderr,
        )
        return EXIT_UNREACHABLE
    return EXIT_FAILED if any(r.verdict == "fail" for r in battery.reports) else EXIT_OK
