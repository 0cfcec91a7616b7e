"""What counts as a secret: the one set of rules every format's scrubber applies
(docs/security.md, "Secrets in uploads").

Names are compared by their words, whatever the letter case and separator: ``X-API-KEY``,
``api_key``, ``apiKey`` and ``Api-Key`` are all the words ``api key``.

* A **header** is secret when one of its words is a secret word (``Authorization``, ``Cookie``,
  ``Set-Cookie``, ``api-key``, ``x-api-key``, ``x-goog-api-key``, ``X-Auth-Token``, ...).
* A **query or form parameter** is secret by the same words, and also when it names a
  signature or a one-time code (``sig``, ``signature``, ``code``: signed links, OAuth).
* A **JSON field of a request** (a HAR ``postData``, a timed capture's header) is secret by
  the header rule.
* In **stream content**, where ``token`` and ``signature`` are ordinary fields (logprobs,
  thinking signatures), only the unambiguous ``TEXT_FIELDS`` are secret.
* A **key-shaped string** is secret anywhere (``KEY_PATTERNS``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SECRET_WORDS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "jwt",
        "key",
        "passphrase",
        "passwd",
        "password",
        "pwd",
        "secret",
        "session",
        "token",
    }
)
PARAM_ONLY_WORDS = frozenset({"code", "sig", "signature"})
# Names written as one lower-case word, which word splitting cannot take apart.
SECRET_COMPACT = frozenset(
    {
        "accesskey",
        "accesstoken",
        "apisecret",
        "apitoken",
        "authtoken",
        "clientsecret",
        "idtoken",
        "jsessionid",
        "privatekey",
        "refreshtoken",
        "secretkey",
        "sessionid",
        "sessiontoken",
        "setcookie",
        "xapikey",
    }
)
# JSON fields that are secret even inside stream payloads: no dialect streams a field so named.
TEXT_FIELDS: tuple[tuple[str, ...], ...] = (
    ("api", "key"),
    ("x", "api", "key"),
    ("x", "goog", "api", "key"),
    ("api", "secret"),
    ("api", "token"),
    ("authorization",),
    ("proxy", "authorization"),
    ("cookie",),
    ("set", "cookie"),
    ("password",),
    ("passwd",),
    ("client", "secret"),
    ("access", "token"),
    ("refresh", "token"),
    ("id", "token"),
    ("auth", "token"),
    ("session", "token"),
    ("bearer", "token"),
    ("secret", "key"),
    ("private", "key"),
    ("secret", "access", "key"),
)

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> tuple[str, ...]:
    """``"X-API-Key"`` -> ``("x", "api", "key")``; ``"apiKey"`` -> ``("api", "key")``."""
    return tuple(word.lower() for word in _WORD.findall(name))


def _secret(name: str, secret_words: frozenset[str]) -> bool:
    parts = words(name)
    return any(part in secret_words for part in parts) or "".join(parts) in SECRET_COMPACT


def is_secret_header(name: str) -> bool:
    return _secret(name, SECRET_WORDS)


def is_secret_param(name: str) -> bool:
    return _secret(name, SECRET_WORDS | PARAM_ONLY_WORDS)


def is_secret_field(name: str) -> bool:
    """A field of a request object (a request body, a timed capture's header)."""
    return _secret(name, SECRET_WORDS)


def name_pattern(names: tuple[tuple[str, ...], ...]) -> str:
    """A regular expression (for ``re.IGNORECASE``) matching each name in any letter case,
    with or without ``-``/``_`` between its words."""
    alternatives = sorted(("[-_]?".join(map(re.escape, name)) for name in names), key=len)
    return "(?:" + "|".join(reversed(alternatives)) + ")"


# Every secret name holds one of these, so a line or parameter without one is skipped cheaply.
SECRET_ROOTS = name_pattern(tuple((word,) for word in sorted(SECRET_WORDS | PARAM_ONLY_WORDS)))


# Key shapes, one place: (kind, literal, what follows it, in any letter case). A literal never
# follows a word character. A bearer token is separated by spaces or tabs only: "Bearer" at
# the end of one SSE data line and a word on the next are no key in any view.
#
# Every shape is searched in linear time (docs/security.md, "Scrubbing in linear time"): what
# follows the literal never fails after an unbounded scan that a later start would repeat.
# The JWT is the one shape that could (its header run must end at a dot, and ``eyJ-eyJ-...``
# restarts that run at every ``eyJ``), so its run is taken whole and possessively, and the
# rest of the token is optional: a match without its ``tail`` group is no key, and the search
# goes on after the run (a later ``eyJ`` in the same run would end it at the same place).
_B64 = r"[A-Za-z0-9_\-]"
KEYS: tuple[tuple[str, str, str, bool], ...] = (
    ("bearer token", "Bearer", r"[ \t]++[A-Za-z0-9._~+/=\-]{8,}", True),
    ("anthropic key", "sk-ant-", r"[A-Za-z0-9_\-]{8,}", False),
    ("openai project key", "sk-proj-", r"[A-Za-z0-9_\-]{8,}", False),
    ("api key (sk-)", "sk-", r"[A-Za-z0-9_\-]{16,}", False),
    ("google api key", "AIza", r"[0-9A-Za-z_\-]{30,}", False),
    ("google oauth token", "ya29", r"\.[0-9A-Za-z_\-]{20,}", False),
    ("jwt", "eyJ", rf"(?={_B64}{{6}}){_B64}*+(?P<tail>\.eyJ{_B64}{{6,}}+\.{_B64}{{6,}}+)?", False),
    *(("github token", p, r"[A-Za-z0-9]{30,}", False) for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    ("github token", "github_pat_", r"[A-Za-z0-9_]{30,}", False),
    ("hugging face token", "hf_", r"[A-Za-z0-9]{30,}", False),
    ("groq key", "gsk_", r"[A-Za-z0-9]{30,}", False),
    ("xai key", "xai-", r"[A-Za-z0-9]{30,}", False),
    ("aws access key id", "AKIA", r"[0-9A-Z]{16}", False),
    ("aws access key id", "ASIA", r"[0-9A-Z]{16}", False),
    *(("slack token", p, r"[0-9A-Za-z\-]{10,}", False) for p in ("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-")),
)  # fmt: skip


def _pattern(literal: str, rest: str, any_case: bool) -> re.Pattern[bytes]:
    """A shape as a pattern that starts with its literal (searched for much faster than one
    that starts with ``\\b``; a case-insensitive one keeps that form)."""
    if any_case:
        return re.compile(("(?i)\\b" + literal + rest).encode())
    word = rf"(?<![A-Za-z0-9_]{re.escape(literal)})"
    return re.compile((re.escape(literal) + word + rest).encode())


KEY_PATTERNS: tuple[tuple[str, re.Pattern[bytes]], ...] = tuple(
    (kind, _pattern(literal, rest, any_case)) for kind, literal, rest, any_case in KEYS
)


def is_key(match: re.Match[bytes]) -> bool:
    """Whether a match of a ``KEY_PATTERNS`` pattern is a key (a JWT's run alone is not)."""
    return "tail" not in match.re.groupindex or match["tail"] is not None


def key_matches(text: bytes) -> Iterator[tuple[str, re.Match[bytes]]]:
    """Every key in ``text``, by kind, shape by shape."""
    for kind, pattern in KEY_PATTERNS:
        for match in pattern.finditer(text):
            if is_key(match):
                yield kind, match


# The best-known secret headers by name, for patterns built from names (the log filter,
# app/web/logs.py); ``is_secret_header`` is the rule, and holds for each of them.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
    }
)
