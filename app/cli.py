"""The ``streamscope`` command: ``inspect`` a capture, ``serve`` the player, ``record`` a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from .captures import FORMATS, Limits, read_capture
from .domain.summary import diagnostic_json, summarize

EXIT_OK = 0
EXIT_NO_STREAM = 2


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
    capture = read_capture(data, args.format, Limits())
    read_any = any(stream.raw for stream in capture.streams)
    if args.json:
        document = {
            "format": capture.format,
            "compression": capture.compression,
            "diagnostics": [diagnostic_json(d) for d in capture.diagnostics],
            "streams": [summarize(stream, args.stall_ms) for stream in capture.streams],
        }
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        from .report import render

        sys.stdout.write(render(capture, args.file, args.stall_ms))
    return EXIT_OK if read_any else EXIT_NO_STREAM


def cmd_serve(args: argparse.Namespace) -> int:
    overrides = {"host": args.host, "port": args.port, "data_dir": args.data_dir}
    if args.public:
        overrides["public"] = True
    problem = _key_settings_problem(overrides)
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
    from .web import config as config_module

    if os.environ.get("STREAMSCOPE_API_KEY_ENVS"):
        return (
            "STREAMSCOPE_API_KEY_ENVS is replaced by STREAMSCOPE_API_KEYS, which ties each key "
            "variable to the base URL it may be sent to, e.g. "
            "STREAMSCOPE_API_KEYS=OPENAI_API_KEY=https://api.openai.com/v1"
        )
    try:
        KeyBindings(config_module.load(overrides)["api_keys"])
    except ValueError as exc:
        return str(exc)
    return None


def cmd_record(args: argparse.Namespace) -> int:
    from .live.record import record

    return record(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="streamscope",
        description="See what an LLM really sends when it streams.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    inspect = commands.add_parser("inspect", help="read a capture and summarise each stream")
    inspect.add_argument("file", help="capture file, or - for standard input")
    inspect.add_argument("--format", choices=sorted(FORMATS), help="skip detection")
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    inspect.add_argument(
        "--stall-ms", type=float, default=250.0, help="gap that counts as a stall (ms)"
    )
    inspect.set_defaults(run=cmd_inspect)
    serve = commands.add_parser("serve", help="start the web player on the bundled demos")
    serve.add_argument("--host", default=None, help="interface (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 5000; 0 picks one)")
    serve.add_argument("--data-dir", default=None, help="where the SQLite store lives")
    serve.add_argument("--public", action="store_true", help="apply the public network policy")
    serve.add_argument("--production", action="store_true", help="gunicorn with threaded workers")
    serve.add_argument("--workers", type=int, default=1, help="gunicorn workers (production)")
    serve.add_argument("--threads", type=int, default=64, help="threads per worker (production)")
    serve.set_defaults(run=cmd_serve)
    rec = commands.add_parser("record", help="stream one request and write it as a timed capture")
    rec.add_argument("--base-url", required=True, help="e.g. http://localhost:8000/v1")
    rec.add_argument("--model", required=True)
    rec.add_argument("--api-key-env", help="read the API key from this environment variable")
    prompt = rec.add_mutually_exclusive_group()
    prompt.add_argument("--prompt", help="one user message")
    prompt.add_argument("--messages", help="a JSON file with the messages list")
    rec.add_argument("--temperature", type=float)
    rec.add_argument("--max-tokens", type=int)
    rec.add_argument("--seed", type=int)
    rec.add_argument("--n", type=int)
    rec.add_argument(
        "--logprobs", type=int, metavar="K", help="logprobs on, with K top alternatives"
    )
    rec.add_argument("--tools", help="a JSON file with the tools list")
    rec.add_argument("--tool-choice", help="auto, none, required, or a function name")
    rec.add_argument("--body", help="JSON merged into the request body")
    rec.add_argument("-o", "--output", required=True, help="the timed capture to write")
    rec.set_defaults(run=cmd_record)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
