"""The ``streamscope`` command: ``inspect`` a capture, ``serve`` the player, ``record`` a run,
``conform`` a server (docs/conform.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .captures import FORMAT_NAMES, Limits
from .captures.ingest import ingest
from .captures.read import readable, unread
from .check.budget import BudgetError
from .check.budget import parse as parse_budgets
from .check.render import junit as render_junit
from .check.render import text as render_check
from .check.verdict import FileCheck, check_capture
from .domain.collector import paused
from .domain.dialects import NAMES as DIALECT_NAMES
from .jsonout import write as write_document
from .report import render, write_json
from .version import __version__

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_NO_STREAM = 2
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE, as a shell reports a command whose reader went away


def _read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def cmd_inspect(args: argparse.Namespace) -> int:
    try:
        data = _read_input(args.file)
    except OSError as exc:
        print(f"streamscope: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_NO_STREAM
    # A capture and its report hold no reference cycles, so the collector would find nothing
    # to free in them; it is paused until the capture is gone (collector.py), which keeps it
    # from walking every container a capture holds (Gemini's usage, one per chunk) over and
    # over while the report is written (docs/performance.md, "The collector").
    with paused():
        return _inspect(data, args)


def _inspect(data: bytes, args: argparse.Namespace) -> int:
    if args.judges and not args.json:
        print("streamscope: --judges goes with --json (docs/judges.md)", file=sys.stderr)
        return EXIT_NO_STREAM
    capture = ingest(data, args.format, Limits(dialect=args.dialect), store=False).capture
    read_any = readable(capture) and not unread(capture)
    if args.json:
        judge = _stream_judge(args) if args.judges else None
        write_json(capture, sys.stdout.buffer.write, args.stall_ms, judge=judge)
    else:
        sys.stdout.write(render(capture, args.file, args.stall_ms))
    return EXIT_OK if read_any else EXIT_NO_STREAM


def cmd_check(args: argparse.Namespace) -> int:
    """``check``: 0 when nothing reaches ``--fail-on`` and every budget holds, 1 otherwise, 2
    when a file cannot be read (docs/rules.md, "streamscope check")."""
    try:
        budgets = parse_budgets(args.budget or "")
    except BudgetError as exc:
        print(f"streamscope check: {exc}", file=sys.stderr)
        return EXIT_NO_STREAM
    results = []
    judge = _stream_judge(args) if args.judges else None
    with paused():
        for path in args.files:
            try:
                data = _read_input(path)
            except OSError as exc:
                results.append(FileCheck(path, error=f"cannot read: {exc.strerror or exc}"))
                continue
            results.append(
                check_capture(
                    path,
                    data,
                    fail_on=args.fail_on,
                    budgets=budgets,
                    stall_ms=args.stall_ms,
                    judge=judge,
                )
            )
    form = "json" if args.json else args.format
    if form == "junit":
        sys.stdout.buffer.write(render_junit(results, args.fail_on))
    elif form == "json":
        write_document({"files": [r.to_json() for r in results]}, sys.stdout.buffer.write)
    else:
        sys.stdout.write(render_check(results, args.fail_on))
    if any(r.error is not None for r in results):
        return EXIT_NO_STREAM
    return EXIT_OK if all(r.passed for r in results) else EXIT_FAILED


def _stream_judge(args: argparse.Namespace) -> Any:
    """``inspect --judges``: each stream's verdicts (docs/judges.md), with the settings' caps
    and the Node judges where ``judges install`` put them."""
    from .judges.capture import judge_stream
    from .judges.runner import Caps, node_dir
    from .settings import load

    settings = load({"data_dir": args.data_dir})
    caps = Caps(timeout_s=settings.judges_timeout_s, memory_mb=settings.judges_memory_mb)
    folder = node_dir(settings.data_dir)

    def judge(stream: Any, normalized: Any) -> list[dict[str, Any]]:
        return judge_stream(stream, caps, folder, normalized)

    return judge


def cmd_judges_install(args: argparse.Namespace) -> int:
    """``judges install``: the Python judges into this environment, the Node judges under the
    data folder (docs/judges.md, "Install")."""
    from .judges.install import install_node, install_python
    from .judges.runner import node_dir
    from .settings import load

    def say(line: str) -> None:
        print(line, file=sys.stderr)

    folder = node_dir(load({"data_dir": args.data_dir}).data_dir)
    ok = True
    if not args.node_only:
        ok = install_python(say) and ok
    if not args.python_only:
        ok = install_node(folder, say) and ok
    return EXIT_OK if ok else EXIT_NO_STREAM


def cmd_export(args: argparse.Namespace) -> int:
    """One self-contained HTML player (docs/teaching.md, "Static export"), or with ``--otlp``
    the capture's spans sent to an OTLP receiver (docs/otel.md)."""
    if args.otlp:
        from .otel.send import send_capture

        return send_capture(args.capture, args.otlp, args.server, args.format, args.dialect)
    if not args.output:
        print("streamscope: export needs -o FILE (or --otlp URL)", file=sys.stderr)
        return EXIT_NO_STREAM
    from .settings import load
    from .standalone.export import (
        DEMO_PREFIX,
        ExportError,
        export_demo,
        export_file,
        export_from_server,
    )
    from .standalone.page import player_size

    try:
        if args.server:
            exported = export_from_server(args.server, args.capture)
        elif args.capture.startswith(DEMO_PREFIX):
            exported = export_demo(args.capture[len(DEMO_PREFIX) :], load({}))
        else:
            try:
                data = _read_input(args.capture)
            except OSError as exc:
                raise ExportError(f"cannot read {args.capture}: {exc.strerror or exc}") from None
            name = "stdin" if args.capture == "-" else Path(args.capture).name
            exported = export_file(data, name, load({}), args.format, args.dialect)
        Path(args.output).write_bytes(exported.html)
    except (ExportError, OSError) as exc:
        print(f"streamscope: {exc}", file=sys.stderr)
        return EXIT_NO_STREAM
    print(
        f"wrote {args.output}: {len(exported.html):,} bytes (capture {exported.capture_size:,}, "
        f"its timeline with raw texts {exported.document_size:,}, player {player_size():,})",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    overrides: dict[str, object] = {
        "host": args.host,
        "port": args.port,
        "data_dir": args.data_dir,
    }
    if args.public:
        overrides["public"] = True
    if args.proxy:  # --proxy NAME=URL, repeated: they replace STREAMSCOPE_PROXY_UPSTREAMS
        overrides["proxy_upstreams"] = ",".join(args.proxy)
    problem = _key_settings_problem(overrides) or _proxy_settings_problem(overrides)
    if problem:
        print(f"streamscope: {problem}", file=sys.stderr)
        return EXIT_NO_STREAM
    if args.production:
        from .production import serve_production

        return serve_production(overrides, args.workers, args.threads)
    from .server import serve

    return serve(overrides)


def _key_settings_problem(overrides: dict[str, object]) -> str | None:
    """A live-key setting the server cannot start with (docs/live.md), or None."""
    import os

    from .live.keys import KeyBindings
    from .settings import load

    if os.environ.get("STREAMSCOPE_API_KEY_ENVS"):
        return (
            "STREAMSCOPE_API_KEY_ENVS is replaced by STREAMSCOPE_API_KEYS, which ties each key "
            "variable to the base URL it may be sent to, e.g. "
            "STREAMSCOPE_API_KEYS=OPENAI_API_KEY=https://api.openai.com/v1"
        )
    try:
        KeyBindings(load(overrides).api_keys)
    except ValueError as exc:
        return str(exc)
    return None


def _proxy_settings_problem(overrides: dict[str, object]) -> str | None:
    """A proxy setting the server cannot start with (docs/proxy.md), or None: malformed
    upstreams, or a public server whose proxy would have no token."""
    from .live.policy import listens_publicly
    from .proxy.upstreams import parse_upstreams
    from .settings import load

    settings = load(overrides)
    try:
        upstreams = parse_upstreams(settings.proxy_upstreams)
    except ValueError as exc:
        return str(exc)
    public = settings.public or listens_publicly(settings.host)
    if upstreams and public and not settings.proxy_token:
        return (
            "this server is public, so its recording proxy needs a token: set "
            "STREAMSCOPE_PROXY_TOKEN (callers send it as X-Streamscope-Proxy-Token)"
        )
    return None


def cmd_proxy(args: argparse.Namespace) -> int:
    """Just the proxy and its pages, on loopback, for one developer (docs/proxy.md)."""
    overrides: dict[str, object] = {
        "host": "127.0.0.1",
        "port": args.port,
        "data_dir": args.data_dir,
        "proxy_upstreams": ",".join(args.upstream),
    }
    problem = _key_settings_problem(overrides) or _proxy_settings_problem(overrides)
    if problem:
        print(f"streamscope: {problem}", file=sys.stderr)
        return EXIT_NO_STREAM
    from .server import serve

    return serve(overrides, front="/proxy")


def cmd_record(args: argparse.Namespace) -> int:
    from .live.record import record

    return record(args)


def cmd_conform(args: argparse.Namespace) -> int:
    from .conform.command import cmd_conform as conform

    return conform(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="streamscope",
        description="See what an LLM really sends when it streams.",
    )
    parser.add_argument("--version", action="version", version=f"streamscope {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    inspect = commands.add_parser("inspect", help="read a capture and summarise each stream")
    inspect.add_argument("file", help="capture file, or - for standard input")
    inspect.add_argument("--format", choices=sorted(FORMAT_NAMES), help="skip detection")
    inspect.add_argument(
        "--dialect",
        choices=sorted(DIALECT_NAMES),
        help="read the payloads as this dialect instead of detecting it",
    )
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    inspect.add_argument(
        "--judges",
        action="store_true",
        help="with --json: run the client judges on each stream and add their verdicts "
        "(docs/judges.md)",
    )
    inspect.add_argument(
        "--data-dir", default=None, help="where `judges install` put the Node judges"
    )
    inspect.add_argument(
        "--stall-ms", type=float, default=250.0, help="gap that counts as a stall (ms)"
    )
    inspect.set_defaults(run=cmd_inspect)
    check = commands.add_parser(
        "check",
        help="fail (exit 1) when captures break rules or budgets: for CI (docs/rules.md)",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="capture files")
    check.add_argument(
        "--fail-on",
        choices=("error", "warning", "info"),
        default="error",
        help="the least severe finding that fails (default error)",
    )
    check.add_argument(
        "--budget", help="metric limits, e.g. ttft=2s,itl-p95=200ms,stall=1s,e2el=60s"
    )
    check.add_argument(
        "--format",
        choices=("text", "json", "junit"),
        default="text",
        help="text for a terminal, json (inspect's and a verdict per file), junit (for CI)",
    )
    check.add_argument("--json", action="store_true", help="the same as --format json")
    check.add_argument(
        "--stall-ms", type=float, default=250.0, help="gap that counts as a stall (ms)"
    )
    check.add_argument(
        "--judges",
        action="store_true",
        help="run the client judges too: a crash fails as an error, a different reading as a "
        "warning (docs/judges.md)",
    )
    check.add_argument(
        "--data-dir", default=None, help="where `judges install` put the Node judges"
    )
    check.set_defaults(run=cmd_check)

    judges = commands.add_parser(
        "judges", help="the client judges: mainstream clients run on a capture's bytes"
    )
    judges_commands = judges.add_subparsers(
        dest="judges_command", required=True, help="what to do with the judges"
    )
    install = judges_commands.add_parser(
        "install",
        help="pip install the Python judges (the judges extra) where missing, and npm ci the "
        "Node judges under the data folder",
    )
    install.add_argument("--data-dir", default=None, help="where the Node judges go")
    only = install.add_mutually_exclusive_group()
    only.add_argument("--python-only", action="store_true", help="only the Python judges")
    only.add_argument("--node-only", action="store_true", help="only the Node judges")
    install.set_defaults(run=cmd_judges_install)
    export = commands.add_parser(
        "export",
        help="write one self-contained HTML player of a capture (plays from file://, no network), "
        "or send its spans to an OTLP receiver (--otlp)",
    )
    export.add_argument(
        "capture",
        help="a capture file ('-' for stdin), demos/<name> for a bundled demo, or with --server "
        "a stored capture's id (or demos/<name>) on that server",
    )
    export.add_argument("-o", "--output", help="the HTML file to write")
    export.add_argument(
        "--otlp",
        metavar="URL",
        help="send the capture's spans (one per stream) to this OTLP/HTTP receiver instead "
        "(docs/otel.md); headers from STREAMSCOPE_OTLP_HEADERS",
    )
    export.add_argument(
        "--server", help="a running Streamscope's URL to export a stored capture from"
    )
    export.add_argument("--format", choices=FORMAT_NAMES, help="read a file as this format")
    export.add_argument("--dialect", choices=DIALECT_NAMES, help="read a file as this dialect")
    export.set_defaults(run=cmd_export)
    serve = commands.add_parser("serve", help="start the web player on the bundled demos")
    serve.add_argument("--host", default=None, help="interface (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 5000; 0 picks one)")
    serve.add_argument("--data-dir", default=None, help="where the SQLite store lives")
    serve.add_argument("--public", action="store_true", help="apply the public network policy")
    serve.add_argument("--production", action="store_true", help="gunicorn with threaded workers")
    serve.add_argument("--workers", type=int, default=1, help="gunicorn workers (production)")
    serve.add_argument("--threads", type=int, default=64, help="threads per worker (production)")
    serve.add_argument(
        "--proxy",
        action="append",
        metavar="NAME=URL",
        help="an upstream of the recording proxy, at /proxy/NAME/ (repeatable; replaces "
        "STREAMSCOPE_PROXY_UPSTREAMS)",
    )
    serve.set_defaults(run=cmd_serve)
    proxy = commands.add_parser(
        "proxy",
        help="run just the recording proxy and its pages, on loopback",
        description="Forward every call under /proxy/NAME/ to the upstream NAME, stream it back "
        "unchanged and record it; /proxy lists the calls as they happen (docs/proxy.md).",
    )
    proxy.add_argument(
        "--upstream",
        action="append",
        required=True,
        metavar="NAME=URL",
        help="an upstream, e.g. openai=https://api.openai.com or local=http://127.0.0.1:8000 "
        "(repeatable)",
    )
    proxy.add_argument("--port", type=int, default=None, help="port (default 5000; 0 picks one)")
    proxy.add_argument("--data-dir", default=None, help="where the recordings are kept")
    proxy.set_defaults(run=cmd_proxy)
    from .live.apis import APIS, DEFAULT_API

    rec = commands.add_parser(
        "record",
        help="stream one request and write it as a timed capture",
        description="Stream one request to an API (--api) and write it as a timed capture. "
        "Exits 0 when the run ended normally, 2 when it failed (what came is still written).",
    )
    rec.add_argument(
        "--base-url",
        required=True,
        help="the endpoint's base URL, e.g. http://localhost:8000/v1, https://api.anthropic.com, "
        "http://localhost:11434 (Ollama native)",
    )
    rec.add_argument(
        "--api",
        choices=list(APIS),
        default=DEFAULT_API,
        help="the API to speak: "
        + "; ".join(f"{a.name}: {a.title} (POST {a.path})" for a in APIS.values())
        + f" (default {DEFAULT_API})",
    )
    rec.add_argument("--model", required=True, help="the model to ask, as the endpoint names it")
    rec.add_argument("--api-key-env", help="read the API key from this environment variable")
    prompt = rec.add_mutually_exclusive_group()
    prompt.add_argument("--prompt", help="one user message (default: 'Say hello.')")
    prompt.add_argument("--messages", help="a JSON file with the messages list")
    rec.add_argument("--temperature", type=float, help="sampling temperature, sent as given")
    rec.add_argument("--max-tokens", type=int, help="the most tokens to generate (max_tokens)")
    rec.add_argument("--seed", type=int, help="sampling seed, for providers that take one")
    rec.add_argument("--n", type=int, help="how many choices to generate (n)")
    rec.add_argument(
        "--logprobs", type=int, metavar="K", help="logprobs on, with K top alternatives"
    )
    rec.add_argument("--tools", help="a JSON file with the tools list")
    rec.add_argument("--tool-choice", help="auto, none, required, or a function name")
    rec.add_argument("--body", help="JSON merged into the request body")
    rec.add_argument("-o", "--output", required=True, help="the timed capture to write")
    rec.set_defaults(run=cmd_record)
    from .conform.arguments import add_parser as add_conform

    add_conform(commands, cmd_conform)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:
        return reader_gone()


def reader_gone() -> int:
    """The reader of stdout went away (``streamscope conform --list | head``): end quietly, as
    other commands in a pipe do. stdout is pointed at the null device so that the interpreter's
    last flush at exit does not raise again (the way Python's documentation of SIGPIPE says)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    return EXIT_PIPE_CLOSED


if __name__ == "__main__":
    raise SystemExit(main())
