"""``streamscope judges install`` (docs/judges.md, "Install"): the Python judges' packages (the
``judges`` extra, pinned) into the running environment where they are missing or another
version, and the Node judges (node/package.json and its lock, pinned) with ``npm ci`` into a
folder under the data folder, since the installed package may be read-only."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from .runner import JUDGE_SCRIPT

NODE_FILES = ("package.json", "package-lock.json")
# The ``judges`` extra as pyproject.toml pins it, for an environment where Streamscope's own
# metadata is not there to read it from (a checkout run in place).
PINNED = ("openai==3.57.0", "anthropic==2.15.0", "langchain-openai==1.7.4")


def pinned() -> list[str]:
    """The ``judges`` extra's requirements, from the installed metadata where there is one."""
    try:
        requires = metadata.requires("streamscope") or []
    except metadata.PackageNotFoundError:
        return list(PINNED)
    found = [
        r.split(";")[0].strip().replace(" ", "")
        for r in requires
        if "extra" in r and "judges" in r.split(";", 1)[-1]
    ]
    return found or list(PINNED)


def missing(requirements: list[str]) -> list[str]:
    """The requirements (``name==version``) not met by what is installed."""
    wanted = []
    for requirement in requirements:
        name, _, version = requirement.partition("==")
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed is None or (version and installed != version):
            wanted.append(requirement)
    return wanted


def install_python(say: Callable[[str], None]) -> bool:
    wanted = missing(pinned())
    if not wanted:
        say("Python judges: installed (" + ", ".join(pinned()) + ")")
        return True
    say("Python judges: pip install " + " ".join(wanted))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *wanted],
        check=False,
    )
    return done.returncode == 0


def install_node(folder: Path, say: Callable[[str], None]) -> bool:
    """``npm ci`` of the Node judges into ``folder`` (made if missing)."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        say("Node judges: not installed (no node and npm on the PATH; install Node.js 20 or later)")
        return False
    folder.mkdir(parents=True, exist_ok=True)
    source = JUDGE_SCRIPT.parent
    for name in NODE_FILES:
        shutil.copyfile(source / name, folder / name)
    shutil.copyfile(JUDGE_SCRIPT, folder / JUDGE_SCRIPT.name)
    say(f"Node judges: npm ci in {folder}")
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error"],
        cwd=folder,
        check=False,
    )
    return done.returncode == 0


def node_installed(folder: Path) -> bool:
    """Whether ``folder`` holds the Node judges as this version pins them."""
    source = JUDGE_SCRIPT.parent
    try:
        same = all((folder / n).read_bytes() == (source / n).read_bytes() for n in NODE_FILES)
    except OSError:
        return False
    return same and (folder / "node_modules" / "ai" / "package.json").exists()
