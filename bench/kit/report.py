"""What every bench prints above its table (the command, the machine), and its JSON results."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from collections.abc import Iterable
from dataclasses import asdict, is_dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from kit import INVOKED_AS, ROOT


def command_line(argv: list[str] | None = None) -> str:
    """``python -m bench NAME <arguments>`` (or ``python bench/<script> <arguments>`` when the
    script was run itself): the arguments given (``argv``, or the process's)."""
    args = sys.argv[1:] if argv is None else argv
    if INVOKED_AS:
        return shlex.join([*INVOKED_AS, *args])
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return shlex.join(["python", script, *args])


def _proc_line(path: str, key: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def machine_info(packages: Iterable[str] = (), browser: str | None = None) -> str:
    """One line: CPU, cores, RAM, OS, Python and the ``packages``' versions, Chromium's
    version (``browser``, where a bench drives it), and the load average now."""
    from tests.chromium import CHROMIUM

    cpu = _proc_line("/proc/cpuinfo", "model name") or platform.machine()
    mem_kb = _proc_line("/proc/meminfo", "MemTotal").split(" ")[0]
    mem = f", {int(mem_kb) / 1048576:.1f} GiB RAM" if mem_kb.isdigit() else ""
    software = [f"Python {platform.python_version()} ({platform.python_implementation()})"]
    software += [f"{name} {version(name)}" for name in packages]
    if browser is not None:
        software.append(f"Chromium {browser} (headless, {CHROMIUM})")
    return (
        f"machine: {cpu}, cpu_count={os.cpu_count()}{mem}, {platform.system()} "
        f"{platform.release()}; {', '.join(software)}; "
        f"loadavg {'/'.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def header(
    title: str = "",
    packages: Iterable[str] = (),
    browser: str | None = None,
    argv: list[str] | None = None,
) -> None:
    """Print the title (``## title``, when given), the command and the machine line."""
    if title:
        print(f"## {title}\n")
    print(f"command: `{command_line(argv)}` (cwd {os.getcwd()})")
    print(machine_info(packages, browser))


def save_json(name: str, data: dict[str, Any]) -> Path:
    """``bench/out/<name>.json`` (or under ``STREAMSCOPE_BENCH_OUT``)."""
    out = Path(os.environ.get("STREAMSCOPE_BENCH_OUT", ROOT / "bench" / "out"))
    return write_json(out / f"{name}.json", data)


def write_json(path: Path, data: dict[str, Any]) -> Path:
    """``data`` as JSON (dataclasses as objects, anything else unknown as text)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=_plain))
    return path


def _plain(value: object) -> object:
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str] | None, quick: dict[str, Any]
) -> argparse.Namespace:
    """The arguments, with ``--quick``: the smaller defaults ``quick`` (a smoke run of about
    a minute; arguments given still win)."""
    smaller = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in quick.items())
    parser.add_argument("--quick", action="store_true", help=f"a smoke run ({smaller})")
    args = parser.parse_args(argv)
    if args.quick:
        parser.set_defaults(**quick)
        args = parser.parse_args(argv)
    return args
