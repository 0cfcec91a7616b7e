"""The ``logprobs-top`` demo: a chat-completion stream made by Streamscope (no model made it).

OpenAI's chunk shape with ``logprobs.content`` entries, each with 5 ``top_logprobs``: mostly
confident tokens, some uncertain ones whose alternatives are close (three sampled below the
top alternative, as temperature 1 does), some chunks carrying two tokens, and an emoji whose
4 UTF-8 bytes come as two byte tokens (``"bytes:\\xf0\\x9f"`` then ``"bytes:\\x9a\\x80"``):
the first arrives in a chunk with empty content, the second in the chunk whose content is the
whole emoji.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson
from demo_timing import Event, Rand, split_events
from gen_capture import usage

EMOJI = "\U0001f680"  # rocket: UTF-8 f0 9f 9a 80, sent as two byte tokens
E1, E2 = "bytes:\\xf0\\x9f", "bytes:\\x9a\\x80"
MADE_TOKENS = [
    E1, E2, " Server", "-S", "ent", " Events", " keep", " one", " HTTP", " response", " open",
    " and", " push", " small", " text", " events", " as", " they", " happen", ".", " Each",
    " event", " is", " one", " or", " more", " `", "data", ":`", " lines", " followed", " by",
    " a", " blank", " line", ".", " For", " chat", " complet", "ions", ",", " every", " event",
    " carries", " one", " JSON", " chunk", " with", " a", " few", " new", " tokens", ",", " and",
    " the", " stream", " ends", " with", " `", "data", ":", " [", "DONE", "]`", ".", " It",
    " works", " through", " most", " prox", "ies", " and", " needs", " no", " Web", "Socket",
    " upgrade", ".",
]  # fmt: skip
TOKEN_BYTES = {E1: [240, 159], E2: [154, 128]}
# Uncertain positions: (token, occurrence) -> top-5 as (token, logprob), the chosen one among
# them (sometimes not the most likely: sampling at temperature 1).
UNCERTAIN: dict[tuple[str, int], list[tuple[str, float]]] = {
    (E1, 0): [(E1, -0.51), ("Server", -1.35), ("**", -2.6), ("SSE", -3.3), ("Think", -4.4)],
    (E2, 0): [
        (E2, -0.0121),
        ("bytes:\\x93\\xa1", -5.2),
        ("bytes:\\x92\\xa1", -6.1),
        ("bytes:\\x8c\\x90", -6.9),
        ("bytes:\\x94\\x8c", -7.6),
    ],
    (" keep", 0): [(" let", -0.92), (" keep", -1.05), (" hold", -2.0), (" are", -3.0),
                   (" stream", -3.5)],
    (" one", 0): [(" one", -0.36), (" a", -1.25), (" an", -5.3), (" the", -5.9),
                  (" single", -6.4)],
    (" push", 0): [(" push", -0.62), (" send", -0.98), (" stream", -3.1), (" deliver", -4.0),
                   (" emit", -4.7)],
    (" small", 0): [(" text", -0.74), (" small", -1.38), (" new", -2.2), (" events", -2.5),
                    (" updates", -3.4)],
    (" happen", 0): [(" happen", -0.21), (" occur", -1.9), (" arrive", -4.2), (" are", -5.5),
                     (" come", -6.0)],
    (" Each", 0): [(" Each", -0.45), (" An", -1.3), (" Every", -3.0), (" The", -3.6),
                   (" On", -5.1)],
    (" For", 0): [(" For", -0.83), (" In", -1.02), (" With", -2.4), (" OpenAI", -3.0),
                  (" LLM", -3.8)],
    (" carries", 0): [(" carries", -0.55), (" is", -1.4), (" holds", -2.1),
                      (" contains", -3.4), (" has", -4.2)],
    (" few", 0): [(" few", -0.94), (" new", -1.25), (" handful", -2.2), (" small", -2.6),
                  (" couple", -3.3)],
    (" It", 0): [(" SSE", -0.95), (" It", -1.1), (" The", -2.3), (" This", -2.6),
                 (" No", -3.9)],
    (" most", 0): [(" most", -0.5), (" almost", -1.6), (" proxies", -2.4), (" HTTP", -3.0),
                   (" standard", -3.7)],
}  # fmt: skip
ALTERNATIVES = {
    " Server": [" server", "Server", " SSE"], " Events": [" events", " Event", " event"],
    " response": [" connection", " request", " stream"], " open": [" alive", " opened"],
    " text": [" messages", " chunks"], " events": [" messages", " updates", " chunks"],
    " lines": [" line", " fields"], " followed": [" ended", " terminated"],
    " blank": [" empty", " new"], " line": [" lines", "line"], " chat": [" Chat", " LLM"],
    " chunk": [" object", " delta"], " tokens": [" token", " characters"],
    " stream": [" response", " connection"], " ends": [" closes", " finishes"],
    " works": [" passes", " goes"], " needs": [" requires", " does"],
    " upgrade": [" handshake", " connection"], " JSON": [" json", " single"],
}  # fmt: skip
GENERIC = [",", ".", " the", " a", " and", " to", "\n\n", " of"]


def _entry(token: str, logprob: float) -> dict[str, Any]:
    data = TOKEN_BYTES.get(token) or list(token.encode())
    if token.startswith("bytes:") and token not in TOKEN_BYTES:
        data = [int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", token)]
    return {"token": token, "logprob": logprob, "bytes": data}


def _sig(x: float) -> float:
    return float(f"{x:.8g}")


def made_logprob(token: str, seen: int, rng: Rand) -> dict[str, Any]:
    """One ``logprobs.content`` entry, with probabilities that add up to at most 1."""
    top = UNCERTAIN.get((token, seen))
    if top is not None:  # hand-picked values, made less round (and never more likely)
        top = [(tok, _sig(lp - rng.uniform(0.0001, 0.006))) for tok, lp in top]
    else:
        p_miss = math.exp(rng.uniform(math.log(2e-6), math.log(0.04)))
        if rng.chance(0.12):
            p_miss = rng.uniform(0.05, 0.3)
        top = [(token, _sig(math.log1p(-p_miss)))]
        options = [*ALTERNATIVES.get(token, []), token.strip() or "\n", *GENERIC]
        options = [o for i, o in enumerate(options) if o != token and o not in options[:i]]
        rest = p_miss
        for _ in range(4):
            alt = options.pop(int(rng.random() * min(len(options), 4)))
            share = rest * rng.uniform(0.45, 0.75)
            rest -= share
            top.append((alt, _sig(math.log(share))))
        top.sort(key=lambda item: -item[1])
    assert sum(math.exp(lp) for _, lp in top) <= 1.0, token
    assert [lp for _, lp in top] == sorted((lp for _, lp in top), reverse=True), token
    chosen = next(lp for tok, lp in top if tok == token)
    entry = _entry(token, chosen)
    entry["top_logprobs"] = [_entry(tok, lp) for tok, lp in top]
    return entry


def made_text(token: str) -> str:
    return {E1: "", E2: EMOJI}.get(token, token)


def made_events(created: int) -> list[Event]:
    """The ``logprobs-top`` stream: OpenAI's chunk shape with logprobs and top_logprobs."""
    rng = Rand(3300)
    base = {
        "id": "chatcmpl-StreamscopeMadeDemoLogprobs01",
        "object": "chat.completion.chunk",
        "created": created,
        "model": "streamscope-made-demo",
        "system_fingerprint": "fp_streamscope",
    }

    def chunk(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> bytes:
        return b"data: " + orjson.dumps({**base, "choices": choices, "usage": usage}) + b"\n\n"

    out = [
        chunk(
            [
                {
                    "index": 0,
                    "delta": {"role": "assistant", "content": "", "refusal": None},
                    "logprobs": {"content": [], "refusal": None},
                    "finish_reason": None,
                }
            ]
        )
    ]
    # Group tokens into chunks: mostly one token, sometimes two (never the emoji's bytes, so
    # the first byte token arrives alone with empty content and the second completes it).
    groups: list[list[str]] = []
    i = 0
    while i < len(MADE_TOKENS):
        pair = MADE_TOKENS[i : i + 2]
        two = len(pair) == 2 and E1 not in pair and E2 not in pair
        if two and (rng.chance(0.12) or pair == [" Web", "Socket"]):
            groups.append(pair)
            i += 2
        else:
            groups.append(pair[:1])
            i += 1
    seen: dict[str, int] = {}
    for group in groups:
        entries = []
        for token in group:
            entries.append(made_logprob(token, seen.get(token, 0), rng))
            seen[token] = seen.get(token, 0) + 1
        text = "".join(made_text(t) for t in group)
        out.append(
            chunk(
                [
                    {
                        "index": 0,
                        "delta": {"content": text},
                        "logprobs": {"content": entries, "refusal": None},
                        "finish_reason": None,
                    }
                ]
            )
        )
    out.append(chunk([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}]))
    out.append(chunk([], usage(31, len(MADE_TOKENS))))
    out.append(b"data: [DONE]\n\n")
    return split_events(b"".join(out))


MADE_CREATED = "2025-06-02T09:30:00Z"
MADE_REQUEST = {
    "model": "streamscope-made-demo",
    "messages": [
        {"role": "system", "content": "You are a concise technical writer."},
        {"role": "user", "content": "Explain Server-Sent Events in one short paragraph."},
    ],
    "logprobs": True,
    "top_logprobs": 5,
    "temperature": 1,
    "stream": True,
    "stream_options": {"include_usage": True},
}
