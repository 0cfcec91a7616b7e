"""Removing secrets from a capture before anything is stored (docs/security.md, "Secrets in
uploads").

One scrubber per format (each format's record in ``formats.py`` names it), each reading the
file the way its reader does, all applying one set of rules (``rules.py``: secret header,
parameter and field names, key shapes) through one sweep (``text.py``) and one set of value
scrubbers (``values.py``):

* ``sse``, ``docs``, ``jsonl``, ``ndjson``, ``json``: the sweep, over the whole text;
* ``har``: ``har.py`` (only event-stream entries, no headers or cookies, bodies decoded);
* ``curl``: ``curl.py`` (secret headers in the HTTP heads, then the sweep);
* ``timed``: ``timed.py`` (the header's fields, the reads swept as one text);
* ``eventstream``: ``eventstream.py`` (each frame's payload and headers, frames written again).

``app/captures/scrubbing.py`` (``scrub(data, fmt)``) picks a format's scrubber from the
registry and runs it within its budget; what cannot be scrubbed is refused (``Unscrubbable``),
never stored as it came.
"""

from __future__ import annotations

from .redactions import REDACTED, Budget, Redactions, Unscrubbable, known_forms
from .rules import KEY_PATTERNS, SECRET_HEADERS
from .text import sweep, sweep_pieces, sweep_str
from .values import scrub_form, scrub_json, scrub_url

__all__ = [
    "KEY_PATTERNS",
    "REDACTED",
    "SECRET_HEADERS",
    "Budget",
    "Redactions",
    "Unscrubbable",
    "known_forms",
    "scrub_form",
    "scrub_json",
    "scrub_url",
    "sweep",
    "sweep_pieces",
    "sweep_str",
]
