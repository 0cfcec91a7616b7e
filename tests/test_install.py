"""A plain ``pip install .`` (not editable) into a fresh virtual environment works from
another directory, with templates, static files and demo captures inside the package."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts real servers on loopback

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_plain_install_into_a_fresh_venv(tmp_path):
    env_dir = tmp_path / "venv"
    # The dependencies come from the environment running the tests (the test command installed
    # them there; the base interpreter's site-packages need not have them all), so the check
    # needs no download beyond the build backend. A path in a .pth file does not run that
    # environment's own .pth files: its editable install of the project stays out of sight.
    venv.EnvBuilder(with_pip=True, system_site_packages=True).create(env_dir)
    python = env_dir / "bin" / "python"
    site_dir = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        check=True,
    )
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site_dir.stdout.decode().strip()) / "_test_dependencies.pth").write_text("\n".join(deps))
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(ROOT)],
        capture_output=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stderr.decode()[-2000:]
    where = subprocess.run(
        [str(python), "-c", "import app, pathlib; print(pathlib.Path(app.__file__).parent)"],
        capture_output=True,
        cwd=tmp_path,
        check=True,
    )
    package = Path(where.stdout.decode().strip())
    assert package.is_relative_to(env_dir), package
    assert (package / "_web" / "templates").is_dir()
    assert (package / "_web" / "static").is_dir()
    index = json.loads((package / "demos" / "index.json").read_text())
    assert index
    for demo in index:
        assert (package / "demos" / demo["file"]).is_file()
    command = env_dir / "bin" / "streamscope"
    first = package / "demos" / index[0]["file"]
    result = subprocess.run(
        [str(command), "inspect", str(first), "--json"],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout)["streams"]
    # The static export's page template is package data beside its builder (docs/teaching.md).
    assert (package / "standalone" / "export.html").is_file()
    assert sys.prefix != str(env_dir)
