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


def _key_shape(prefixes: tuple[str, ...], rest: str) -> tuple[re.Pattern[bytes], ...]:
    """One pattern per literal prefix (a regular expression that starts with a literal is
    searched for much faster), the prefix not preceded by a word character."""
    return tuple(
        re.compile(
            re.escape(prefix).encode()
            + rb"(?<![A-Za-z0-9_]"
            + re.escape(prefix).encode()
            + rb")"
            + rest.encode()
        )
        for prefix in prefixes
    )


# Longer prefixes first: "sk-ant-..." is counted as an Anthropic key, not as "sk-...".
KEY_SHAPES: tuple[tuple[str, tuple[re.Pattern[bytes], ...]], ...] = (
    ("bearer token", _key_shape(("Bearer", "bearer", "BEARER"), r"[ \t]+[A-Za-z0-9._~+/=\-]{8,}")),
    ("anthropic key", _key_shape(("sk-ant-",), r"[A-Za-z0-9_\-]{8,}")),
    ("openai project key", _key_shape(("sk-proj-",), r"[A-Za-z0-9_\-]{8,}")),
    ("api key (sk-)", _key_shape(("sk-",), r"[A-Za-z0-9_\-]{16,}")),
    ("google api key", _key_shape(("AIza",), r"[0-9A-Za-z_\-]{30,}")),
    ("google oauth token", _key_shape(("ya29.",), r"[0-9A-Za-z_\-]{20,}")),
    (
        "jwt",
        _key_shape(("eyJ",), r"[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"),
    ),
    ("github token", _key_shape(("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{30,}")),
    ("github token", _key_shape(("github_pat_",), r"[A-Za-z0-9_]{30,}")),
    ("hugging face token", _key_shape(("hf_",), r"[A-Za-z0-9]{30,}")),
    ("groq key", _key_shape(("gsk_",), r"[A-Za-z0-9]{30,}")),
    ("xai key", _key_shape(("xai-",), r"[A-Za-z0-9]{30,}")),
    ("aws access key id", _key_shape(("AKIA", "ASIA"), r"[0-9A-Z]{16}\b")),
    (
        "slack token",
        _key_shape(("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"), r"[0-9A-Za-z\-]{10,}"),
    ),
)
