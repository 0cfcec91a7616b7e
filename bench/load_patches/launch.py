"""Run ``streamscope`` with experimental patches, to measure a change before making it.

    STREAMSCOPE_BENCH_LAUNCHER=bench/load_patches/launch.py STREAMSCOPE_PATCHES=fanout,compact \
        python bench/load_fanout_live.py

``STREAMSCOPE_PATCHES`` names modules of this folder (comma-separated); each patches the app
when imported. Then ``app.cli.main`` runs as ``python -m app.cli`` would (gunicorn forks its
worker after the patches are applied). Nothing here is used by the app or its tests.

* ``compact``: a live run's log keeps one exact-size ``bytes`` per read (``hub.py``);
* ``closeconn``: the store closes the SQLite connections of threads that have ended;
* ``fanout``: one writer thread per live run sends each message's frame to every follower
  with non-blocking sends, at most every ``STREAMSCOPE_FANOUT_INTERVAL`` seconds (0.04);
* ``interval``: each follower's thread sends at most every ``STREAMSCOPE_FOLLOW_INTERVAL``
  seconds (0.04), gathering what arrived meanwhile into one message;
* ``replaycache``: a replay's messages are encoded once per parsed capture and shared.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE)]

for name in filter(None, os.environ.get("STREAMSCOPE_PATCHES", "").split(",")):
    importlib.import_module(name.strip())

from app.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
