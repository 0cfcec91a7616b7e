"""Running a judge (docs/judges.md, "Caps"): in a child process with its address space capped
(``RLIMIT_AS``, set in the child before the judge starts), what it may write capped (its output goes
to files capped by ``RLIMIT_FSIZE``, read back up to that size), and a time after which its
whole process group is killed. What it writes is turned into a verdict by the domain's
comparison with Streamscope's own reading (app/domain/judging.py)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from ..domain.judging import first_line, judged, verdict
from .registry import Judge

JUDGE_SCRIPT = Path(__file__).parent / "node" / "judge.mjs"
NODE_HEAP_MB = 512


@dataclass(frozen=True)
class Caps:
    """What one judge's process may take: seconds of wall time, MB of address space, bytes of
    output (standard output and standard error each)."""

    timeout_s: float = 30.0
    memory_mb: int = 2048
    output_bytes: int = 1024 * 1024


@dataclass(frozen=True)
class Ran:
    """How a child process ended: ``timed_out``, or its return code, and what it wrote (up to
    the cap)."""

    timed_out: bool
    returncode: int | None
    stdout: bytes
    stderr: bytes


def node_dir(data_dir: str | Path) -> Path:
    """Where ``judges install`` puts the Node judges: under the data folder (the installed
    package may be read-only)."""
    return Path(data_dir) / "judges" / "node"


def version_of(judge: Judge, node_modules_at: Path | None) -> str | None:
    """The installed version of the judge's package, or None when it is not installed (for a
    Node judge: no ``node`` on the PATH, or the package not under ``node_modules_at``)."""
    if judge.runtime == "python":
        try:
            return metadata.version(judge.package)
        except metadata.PackageNotFoundError:
            return None
    if node_modules_at is None or shutil.which("node") is None:
        return None
    return _npm_version(node_modules_at, judge.package)


def _npm_version(folder: Path, package: str) -> str | None:
    try:
        found = json.loads((folder / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    version = found.get("version") if isinstance(found, dict) else None
    return version if isinstance(version, str) else None


def command_for(judge: Judge, node_modules_at: Path | None) -> tuple[list[str], Path | None]:
    """The judge's command line and the folder it runs in."""
    if judge.runtime == "python":
        return [sys.executable, "-m", "app.judges.child", judge.target, judge.api], None
    assert node_modules_at is not None
    script = node_modules_at / JUDGE_SCRIPT.name
    _same_script(script)
    node = shutil.which("node") or "node"
    return [node, f"--max-old-space-size={NODE_HEAP_MB}", str(script), judge.target], (
        node_modules_at
    )


def _same_script(script: Path) -> None:
    """The judge script beside its node_modules, as this version of Streamscope has it (ES
    modules resolve packages from the script's own folder)."""
    wanted = JUDGE_SCRIPT.read_bytes()
    try:
        if script.read_bytes() == wanted:
            return
    except OSError:
        pass
    # Written beside it and moved into place: a judge starting meanwhile reads the whole of
    # one or the other, never half of one.
    fresh = script.with_name(f".{script.name}.{os.getpid()}.{threading.get_ident()}")
    fresh.write_bytes(wanted)
    os.replace(fresh, script)


def api_of(judge: Judge, node_modules_at: Path | None) -> str:
    """The API as the verdict names it: a Node judge's names the ``ai`` package's version."""
    if judge.runtime == "node" and node_modules_at is not None:
        ai = _npm_version(node_modules_at, "ai")
        if ai:
            return f"{judge.api} (ai {ai})"
    return judge.api


def run(
    judge: Judge,
    body: bytes,
    ours: dict[str, Any],
    caps: Caps,
    node_modules_at: Path | None = None,
) -> dict[str, Any]:
    """The verdict of ``judge`` on a stream's ``body``, held against ``ours`` (its
    reference)."""
    version = version_of(judge, node_modules_at)
    api = api_of(judge, node_modules_at)
    if version is None:
        how = "streamscope judges install"
        return verdict(judge.client, None, api, "not installed", error=f"not installed ({how})")
    try:
        command, cwd = command_for(judge, node_modules_at)
        ran = run_capped(command, body, caps, cwd)
    except OSError as exc:  # the folder read-only, node gone since it was looked for
        return verdict(judge.client, version, api, "not installed", error=f"cannot start: {exc}")
    return read_answer(judge.client, version, api, ours, ran, caps)


def read_answer(
    client: str, version: str | None, api: str, ours: dict[str, Any], ran: Ran, caps: Caps
) -> dict[str, Any]:
    """The verdict from what a judge's process wrote."""
    if ran.timed_out:
        return verdict(client, version, api, "timeout", error=f"killed after {caps.timeout_s:g} s")
    answer = _answer(ran.stdout)
    if isinstance(answer, dict) and isinstance(answer.get("theirs"), dict):
        return judged(client, version, api, ours, answer["theirs"])
    if isinstance(answer, dict) and isinstance(answer.get("crash"), str):
        return verdict(client, version, api, "crash", error=first_line(answer["crash"]))
    said = _last_line(ran.stderr.decode(errors="replace")) or "no answer"
    return verdict(
        client,
        version,
        api,
        "crash",
        error=f"the judge's process ended with code {ran.returncode}: {said}",
    )


def _last_line(text: str, limit: int = 500) -> str:
    """The last line a dead process wrote (a traceback ends with its exception)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:limit] if lines else ""


def _answer(stdout: bytes) -> Any:
    """The last JSON line the judge wrote (a client may print before it)."""
    for line in reversed(stdout.decode(errors="replace").strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


# Sets the caps, then becomes the judge (``exec``: the limits stay with the process). A small
# program of its own rather than ``preexec_fn``, which is not safe in a server's threads.
_LIMITED = """\
import os, resource, sys
memory, size, cpu = (int(value) for value in sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
os.execvp(sys.argv[4], sys.argv[4:])
"""


def limited(command: list[str], caps: Caps) -> list[str]:
    """``command`` run under ``caps``: address space, file size (its output), CPU seconds."""
    return [
        sys.executable,
        "-I",
        "-c",
        _LIMITED,
        str(caps.memory_mb * 1024 * 1024),
        str(caps.output_bytes),
        str(int(caps.timeout_s) + 2),
        *command,
    ]


def run_capped(command: list[str], data: bytes, caps: Caps, cwd: Path | None = None) -> Ran:
    """``command`` with ``data`` on its standard input, under ``caps``."""
    with (
        tempfile.TemporaryFile() as stdin,
        tempfile.TemporaryFile() as stdout,
        tempfile.TemporaryFile() as stderr,
    ):
        stdin.write(data)
        stdin.seek(0)
        process = subprocess.Popen(
            limited(command, caps),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=_environment(),
            start_new_session=True,
        )
        timed_out = False
        try:
            process.wait(timeout=caps.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        stdout.seek(0)
        stderr.seek(0)
        return Ran(
            timed_out,
            None if timed_out else process.returncode,
            stdout.read(caps.output_bytes),
            stderr.read(caps.output_bytes),
        )


def _environment() -> dict[str, str]:
    """The child's environment: the parent's, less what could make a client reach out (proxy
    settings, API keys it would not use anyway) or trace (LangSmith)."""
    kept = {}
    for name, value in os.environ.items():
        upper = name.upper()
        if upper.endswith(("_API_KEY", "_PROXY", "_TOKEN")) or upper.startswith("LANGSMITH"):
            continue
        if upper.startswith("LANGCHAIN_"):
            continue
        kept[name] = value
    kept["PYTHONDONTWRITEBYTECODE"] = "1"
    return kept
