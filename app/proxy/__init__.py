"""The recording proxy (docs/proxy.md): an app's base URL points at ``/proxy/<name>/`` and each
of its calls is forwarded to the upstream of that name, streamed back unchanged, and recorded
with its timing as a live run is.

``upstreams.py`` (names, where a call goes), ``headers.py`` (what is forwarded and recorded),
``exchange.py`` (one call: request, pass-through, how it ends), ``recording.py`` (the call as
a live run, never breaking the call), ``watch.py`` (deadlines and clients that hung up),
``calls.py`` (the list of calls), ``service.py`` (all of it together). The web side is
``app/web/http/proxy.py``.
"""

PREFIX = "/proxy/"  # every forwarded call's path starts so


def is_call_path(path: str) -> bool:
    return path.startswith(PREFIX)
