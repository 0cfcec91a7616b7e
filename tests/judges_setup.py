"""The Node judges for the tests (docs/judges.md, "Install"): where ``streamscope judges
install`` put them on this machine (scripts/test runs it), or else installed now with that
command into a folder of the tests' own."""

from __future__ import annotations

from pathlib import Path

from app.cli import main
from app.judges.install import node_installed
from app.judges.runner import node_dir
from app.settings import load


def node_judges(tmp_path_factory) -> Path:
    installed = node_dir(load({}).data_dir)
    if node_installed(installed):
        return installed
    data = tmp_path_factory.mktemp("judges-data")
    assert main(["judges", "install", "--node-only", "--data-dir", str(data)]) == 0
    folder = node_dir(data)
    assert node_installed(folder)
    return folder


def data_dir_with_judges(tmp_path_factory, name: str) -> Path:
    """A new data folder whose Node judges are those of ``node_judges`` (a link)."""
    folder = node_judges(tmp_path_factory)
    data = tmp_path_factory.mktemp(name)
    target = node_dir(data)
    target.parent.mkdir(parents=True)
    target.symlink_to(folder, target_is_directory=True)
    return data
