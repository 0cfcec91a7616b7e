"""What the benchmarks share (what each measures: docs/performance.md, "The benchmarks").

* ``table``: the Markdown table with a pass mark per target and the verdict, the percentile
  every bench uses (``pct``), number formats;
* ``report``: the command line, the machine line, the header, JSON results;
* ``procfs``, ``cpu``: process statistics from /proc, and ``CpuMeter``: the machine's CPU
  against this bench's own processes over a window (how much other processes took);
* ``server``: ``streamscope serve --production`` in a subprocess, uploads, and the cleanup of
  everything a bench started; ``fake``: the fake upstream in its own process;
* ``workers`` (parent side) and ``clients`` (the client processes): many websocket clients
  per process, driven over JSON lines;
* ``browser``, ``devtools``: Chromium pages under the CSP, CPU profiles and traces.

Importing ``kit`` puts the repository root (``app``, ``tests``) and ``bench/`` on
``sys.path``, so a bench imports ``kit`` before ``app`` and ``tests``. Everything runs on
127.0.0.1, on free ports, and is stopped at the end.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
ROOT = BENCH.parent
for _path in (ROOT, BENCH):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

# How the running bench was started, when ``python -m bench NAME`` started it (bench/__main__.py):
# the command line a report prints.
INVOKED_AS: list[str] = []
