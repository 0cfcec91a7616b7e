"""``streamscope conform``'s arguments: light to import, as every command's parser is built at
start-up; the command itself is ``command.py``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..live.apis import APIS

MAX_CONCURRENCY = 16


def add_parser(commands: Any, run: Callable[[argparse.Namespace], int]) -> None:
    """``conform``'s subcommand, its options and what runs it (``command.py``, imported
    when it runs)."""
    conform = commands.add_parser(
        "conform",
        help="test a streaming server the way its clients use it: a battery of cases, a report "
        "card (docs/conform.md)",
        description="Send a battery of streamed requests, record each answer, check what each "
        "case expects and what the rules (and with --judges the client judges) find, and print "
        "a report card. Exits 0 when no case fails, 1 when one does, 2 when the server cannot "
        "be reached at all.",
    )
    conform.add_argument(
        "--base-url", help="the server's base URL, e.g. http://localhost:8000/v1 (required)"
    )
    conform.add_argument(
        "--api",
        choices=list(APIS),
        default="chat",
        help="the API to test: chat (default), anthropic or responses (the cases with a form in it)",
    )
    conform.add_argument(
        "--model",
        help="the model to ask, as the server names it (default: the first by name its models list names)",
    )
    conform.add_argument("--api-key-env", help="read the API key from this environment variable")
    conform.add_argument("--only", help="only these cases, comma-separated")
    conform.add_argument("--skip", help="leave out these cases, comma-separated")
    conform.add_argument(
        "--concurrency",
        type=int,
        default=2,
        help=f"cases at once (default 2, at most {MAX_CONCURRENCY})",
    )
    conform.add_argument(
        "--case-timeout", type=float, default=60.0, help="seconds a case may take (default 60)"
    )
    conform.add_argument("--json", action="store_true", help="print one JSON document")
    conform.add_argument("--junit", metavar="FILE", help="also write JUnit XML to FILE")
    conform.add_argument("--out", metavar="DIR", help="write each case's timed capture here")
    conform.add_argument(
        "--server",
        metavar="URL",
        help="upload each capture to this Streamscope server, for a share link each",
    )
    conform.add_argument(
        "--judges",
        action="store_true",
        help="run the client judges on each answer too (seconds each; docs/judges.md)",
    )
    conform.add_argument(
        "--data-dir", default=None, help="where `judges install` put the Node judges"
    )
    conform.add_argument(
        "--stall-ms", type=float, default=250.0, help="gap that counts as a stall (ms)"
    )
    conform.add_argument("--list", action="store_true", help="list the cases and exit")
    conform.set_defaults(run=run)
