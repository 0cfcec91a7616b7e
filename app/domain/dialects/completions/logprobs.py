"""Legacy completions logprobs, both ways (docs/dialects.md, "Legacy completions").

The old shape is four parallel lists per chunk and choice: ``tokens``, ``token_logprobs``,
``top_logprobs`` (one ``{token: logprob}`` object per token, or null) and ``text_offset``. The
timeline holds every dialect's logprobs as chat entries (docs/timeline.md, "logprobs"), so the
page's token popover reads them the same way: ``{token, logprob, bytes, top_logprobs: [{token,
logprob}], text_offset}``, with ``bytes`` the token's UTF-8 (or, for a token OpenAI writes as
``bytes:\\xe2\\x80``, those bytes). ``rebuild`` turns the entries back into the old shape
exactly.
"""

from __future__ import annotations

import re
from typing import Any

OLD_FIELDS = ("tokens", "token_logprobs", "top_logprobs", "text_offset")
_BYTES_TOKEN = re.compile(r"bytes:((?:\\x[0-9a-fA-F]{2})+)")


def is_old_shape(logprobs: dict[str, Any]) -> bool:
    return "tokens" in logprobs


def entries(logprobs: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The chat entries of one chunk's old-shape logprobs, and what was wrong with its shape
    (lists of different lengths, a list that is not one), if anything."""
    tokens = logprobs.get("tokens")
    if not isinstance(tokens, list):
        return [], "logprobs.tokens is not a list"
    columns = {name: logprobs.get(name) for name in OLD_FIELDS[1:]}
    problem = None
    for name, column in columns.items():
        if column is not None and not isinstance(column, list):
            problem, columns[name] = problem or f"logprobs.{name} is not a list", None
        elif isinstance(column, list) and len(column) != len(tokens):
            problem = problem or f"logprobs.{name} has {len(column)} items for {len(tokens)} tokens"
    logprob, top, offset = (
        columns["token_logprobs"],
        columns["top_logprobs"],
        columns["text_offset"],
    )
    out = []
    for i, token in enumerate(tokens):
        entry: dict[str, Any] = {
            "token": token,
            "logprob": _at(logprob, i),
            "bytes": token_bytes(token),
            "top_logprobs": _alternatives(_at(top, i)),
            "text_offset": _at(offset, i),  # always there: it marks the old shape
        }
        out.append(entry)
    return out, problem


def token_bytes(token: Any) -> list[int] | None:
    if not isinstance(token, str):
        return None
    raw = _BYTES_TOKEN.fullmatch(token)
    if raw is not None:
        return list(bytes.fromhex(raw.group(1).replace("\\x", "")))
    return list(token.encode("utf-8", "surrogatepass"))


def rebuild(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The old shape from the entries: ``top_logprobs`` and ``text_offset`` are null when no
    chunk sent them."""
    tops = [e.get("top_logprobs") for e in entries]
    return {
        "tokens": [e.get("token") for e in entries],
        "token_logprobs": [e.get("logprob") for e in entries],
        "top_logprobs": (
            [_as_object(t) for t in tops] if any(t is not None for t in tops) else None
        ),
        "text_offset": (
            [e.get("text_offset") for e in entries]
            if any(e.get("text_offset") is not None for e in entries)
            else None
        ),
    }


def _at(column: list[Any] | None, i: int) -> Any:
    return column[i] if column is not None and i < len(column) else None


def _alternatives(top: Any) -> list[dict[str, Any]] | None:
    if not isinstance(top, dict):
        return None
    return [{"token": token, "logprob": logprob} for token, logprob in top.items()]


def _as_object(alternatives: Any) -> dict[str, Any] | None:
    if not isinstance(alternatives, list):
        return None
    return {a["token"]: a["logprob"] for a in alternatives if isinstance(a, dict)}
