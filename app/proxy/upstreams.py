"""The recording proxy's upstreams, and where a call under ``/proxy/<name>/`` goes
(docs/proxy.md).

``STREAMSCOPE_PROXY_UPSTREAMS`` names each upstream the operator allows:
``openai=https://api.openai.com,local=http://127.0.0.1:8000``. A call to
``/proxy/<name>/<rest>?<query>`` goes to ``<URL>/<rest>?<query>``, always to that URL's scheme,
host and port, under its path: the caller chooses the path, never the host (no open relay). A
rest that could be read two ways (``.`` or ``..`` segments, encoded slashes or backslashes,
control characters) is refused, so what is checked is what the upstream is asked for. The
proxy's own token (``proxy_token``) is taken out of the query before anything is forwarded or
recorded.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote, unquote, unquote_plus, urlsplit

from ..live.apis import APIS, Api
from ..live.keys import upstream_of

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
UNSAFE = re.compile(r"[\\\x00-\x20\x7f#]|%2f|%5c|%00", re.I)
TOKEN_PARAM = "proxy_token"
GEMINI_MODEL = re.compile(r"/models/([^/]+):[A-Za-z]+$")


class BadTarget(ValueError):
    """The path or query of a call cannot be forwarded safely; the message says why."""


@dataclass(frozen=True)
class Upstream:
    name: str
    url: str  # as configured, without a trailing slash
    scheme: str
    host: str  # the host name or address, as in the URL (IPv6 in brackets)
    port: int
    path: str  # the base path, without a trailing slash

    def target(self, rest: str, query: str) -> str:
        """The URL a call goes to: ``rest`` (raw, percent-encoded as the client sent it) under
        the base path, with ``query`` (raw, the proxy's token already out)."""
        check_rest(rest)
        url = f"{self.scheme}://{self.host}:{self.port}{self.path}/{rest}"
        return f"{url}?{query}" if query else url


def parse_upstreams(text: str) -> dict[str, Upstream]:
    """``NAME=URL,...`` as upstreams by name; ValueError says which entry is wrong and why."""
    found: dict[str, Upstream] = {}
    for number, entry in enumerate(text.split(","), 1):
        entry = entry.strip()
        if not entry:
            continue
        name, equals, url = (part.strip() for part in entry.partition("="))
        if not equals or not NAME.fullmatch(name):
            raise ValueError(
                f"STREAMSCOPE_PROXY_UPSTREAMS, entry {number} ({entry[:60]!r}): write NAME=URL "
                "(a name of letters, digits, '.', '_' and '-'), e.g. local=http://127.0.0.1:8000"
            )
        if name in found:
            raise ValueError(f"STREAMSCOPE_PROXY_UPSTREAMS: the name {name!r} is given twice")
        checked = upstream_of(url.rstrip("/") or url)
        if isinstance(checked, str):
            raise ValueError(f"STREAMSCOPE_PROXY_UPSTREAMS, {name}: {url!r} is refused: {checked}")
        netloc = urlsplit(url).netloc.rpartition("@")[2]
        host = netloc[: netloc.rindex("]") + 1] if netloc.startswith("[") else checked.host
        found[name] = Upstream(
            name, url.rstrip("/"), checked.scheme, host, checked.port, checked.path
        )
    return found


def check_rest(rest: str) -> None:
    """Refuse a path that could leave the base path, or that servers read differently."""
    if UNSAFE.search(rest):
        raise BadTarget(
            "the path has a backslash, a space or control character, a '#', or an encoded "
            "slash or backslash; it is not forwarded"
        )
    for segment in rest.split("/"):
        decoded = fully_decoded(segment)
        if decoded is None:
            raise BadTarget(
                "the path has a percent-encoding that is not UTF-8 (an overlong '.' such as "
                "%c0%ae, say); it is not forwarded"
            )
        if "/" in decoded or "\\" in decoded or "\x00" in decoded:
            raise BadTarget(
                "the path has a slash, backslash or NUL encoded more than once; it is not forwarded"
            )
        # A segment's parameters (";x", which servlet containers strip) do not hide a "..";
        # nor does encoding it twice (%252e), a compatibility form (U+2024) or more dots.
        name = unicodedata.normalize("NFKC", decoded.split(";", 1)[0])
        if name and name.strip(". ") == "":
            raise BadTarget("the path has '.', '..' or dots-only segments; it is not forwarded")


def fully_decoded(segment: str, rounds: int = 4) -> str | None:
    """The segment percent-decoded until nothing changes (a server behind may decode again),
    as strict UTF-8; None when a round is not UTF-8."""
    for _ in range(rounds):
        try:
            decoded = unquote(segment, errors="strict")
        except UnicodeDecodeError:
            return None
        if decoded == segment:
            break
        segment = decoded
    return segment


def without_token(query: str) -> tuple[str, str | None]:
    """The raw query without the proxy's own ``proxy_token`` parameter, and its value."""
    kept, token = [], None
    for pair in query.split("&") if query else []:
        name, _, value = pair.partition("=")
        if unquote_plus(name) == TOKEN_PARAM:
            token = unquote_plus(value)
            continue
        kept.append(pair)
    return "&".join(kept), token


def raw_rest(raw_uri: str | None, name: str, path_info: str) -> str:
    """What follows ``/proxy/<name>/`` in the request target, percent-encoded as the client
    sent it (the WSGI server's raw URI; else the decoded path, encoded again)."""
    path = (raw_uri or "").split("?", 1)[0]
    segments = path.split("/")
    if len(segments) >= 3 and segments[1] == "proxy" and unquote(segments[2]) == name:
        return "/".join(segments[3:])
    rest = path_info.split("/", 3)[3] if path_info.count("/") >= 3 else ""
    return quote(rest, safe="/:@!$&'()*+,;=-._~")


def api_of(path: str) -> Api | None:
    """The API a path speaks (docs/live.md, "APIs"), when it is one of them."""
    if ":streamGenerateContent" in path or ":generateContent" in path:
        return APIS["gemini"]
    for api in APIS.values():
        if "{model}" not in api.path and path.endswith(api.path):
            return api
    return None


def model_of(body: object, path: str) -> str | None:
    """The model a call asks for: the body's ``model``, else the one in the path (Gemini)."""
    if isinstance(body, dict) and isinstance(body.get("model"), str) and body["model"]:
        return str(body["model"])[:200]
    found = GEMINI_MODEL.search(path)
    return unquote(found[1])[:200] if found else None
