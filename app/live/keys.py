"""Keys from the server's environment, each tied to the one upstream it may be sent to
(docs/security.md, "Live runs").

``STREAMSCOPE_API_KEYS`` pairs each variable with a base URL:
``OPENAI_API_KEY=https://api.openai.com/v1,GROQ_API_KEY=https://api.groq.com/openai/v1``. A run
or a model list that names a variable may only go to that upstream: the same scheme, host and
port, and a path at or under the configured one. A URL that could be read two ways (user-info,
a query or fragment, backslashes, encoded or dot path segments) is refused outright, so what is
checked here is what httpx connects to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
AMBIGUOUS = re.compile(r"[\\\s]|%2e|%2f|%5c", re.I)
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Upstream:
    scheme: str
    host: str
    port: int
    path: str  # without a trailing slash

    def contains(self, other: Upstream) -> bool:
        return (self.scheme, self.host, self.port) == (other.scheme, other.host, other.port) and (
            other.path == self.path or other.path.startswith(self.path + "/")
        )


def upstream_of(url: str) -> Upstream | str:
    """The URL's upstream, or why it cannot be compared safely."""
    if AMBIGUOUS.search(url):
        return "it has a backslash, a space, or an encoded dot or slash"
    try:
        parts: SplitResult = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"it is not a valid URL ({exc})"
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return "it is not an http(s) URL"
    if "@" in parts.netloc or parts.query or parts.fragment or "?" in url or "#" in url:
        return "it has user-info, a query or a fragment"
    segments = parts.path.split("/")
    if any(segment in (".", "..") for segment in segments):
        return "its path has . or .. segments"
    return Upstream(
        parts.scheme,
        parts.hostname,
        port or DEFAULT_PORTS[parts.scheme],
        parts.path.rstrip("/"),
    )


class KeyBindings:
    """Which server variable may be sent where."""

    def __init__(self, text: str) -> None:
        self.urls: dict[str, str] = {}
        self._upstreams: dict[str, Upstream] = {}
        for number, entry in enumerate(text.split(","), 1):
            entry = entry.strip()
            if not entry:
                continue
            name, equals, url = (part.strip() for part in entry.partition("="))
            if not equals or not VARIABLE.fullmatch(name):
                raise ValueError(
                    f"STREAMSCOPE_API_KEYS, entry {number} ({entry[:40]!r}): "
                    "write VARIABLE=BASE_URL, e.g. OPENAI_API_KEY=https://api.openai.com/v1"
                )
            upstream = upstream_of(url)
            if isinstance(upstream, str):
                raise ValueError(f"STREAMSCOPE_API_KEYS, {name}: {url!r} is refused: {upstream}")
            self.urls[name] = url
            self._upstreams[name] = upstream

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(self.urls)

    def why_not(self, variable: str, base_url: str) -> str | None:
        """Why the key in ``variable`` may not go to ``base_url``, or None when it may."""
        bound = self._upstreams.get(variable)
        if bound is None:
            listed = ", ".join(self.urls) or "none"
            return (
                f"{variable} is not a key variable of this server (STREAMSCOPE_API_KEYS: {listed})"
            )
        target = upstream_of(base_url)
        if isinstance(target, str):
            return f"{variable} is only sent to {self.urls[variable]}, and this base_url is refused: {target}"
        if not bound.contains(target):
            shown = f"{target.scheme}://{target.host}:{target.port}{target.path}"
            return (
                f"{variable} may only be sent to {self.urls[variable]} (STREAMSCOPE_API_KEYS), "
                f"not to {shown}"
            )
        return None
