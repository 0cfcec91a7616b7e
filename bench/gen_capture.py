"""Write a realistic OpenAI chat-completion SSE capture with per-token logprobs.

Every chunk is ``data: {chat.completion.chunk}\\n\\n`` exactly as the OpenAI API sends it with
``stream_options={"include_usage": true}`` and ``logprobs=true, top_logprobs=5``: compact JSON,
``usage: null`` on every chunk, one token of ``delta.content`` and one
``logprobs.content`` entry ``{token, logprob, bytes, top_logprobs: [5 x {token, logprob, bytes}]}``.
The first chunk carries the role, then come the token chunks, a finish chunk, a usage chunk
with ``choices: []`` and ``data: [DONE]``.

Deterministic (seeded). Tokens include multi-byte UTF-8 (accents, CJK, punctuation) and, now and
then, an emoji whose four bytes are split across two tokens: the first token is reported as
``bytes:\\xf0\\x9f`` with empty content, the second carries the emoji (as the API does).

    python -m bench gen-capture --chunks 100000 -o bench/out/capture-100k.sse
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from pathlib import Path

import orjson

ID = "chatcmpl-AbC9xYz0123456789StreamscopeBench"
CREATED = 1730000000
MODEL = "gpt-4o-2024-08-06"
FINGERPRINT = "fp_831e067d82"

# fmt: off
WORDS = [
    " the", " of", " and", " to", " a", " in", " is", " that", " for", " it", " as", " with",
    " stream", " token", " model", " server", " data", " event", " chunk", " response", " time",
    " which", " this", " be", " are", " by", " on", " not", " or", " from", " at", " we", " an",
    ",", ".", ":", ";", "\n\n", "\n", " (", ")", " \"", "\"", "'s", "-", " \u2014", "\u2019",
    " \u201c", "\u201d", " café", " naïve", " über", " résumé", " Straße", " año", " façade",
    " Ελλάδα", " мир", " 日本", "語", " 東京", " 数据", "流", " 한국어", " €", " £", " ±", " µs",
    " →", " ✓", "ing", "ed", "ly", "er", "tion", " Stream", "scope", " JSON", " SSE", " API",
    " 42", " 2024",
]
# fmt: on
EMOJI = ["😀", "🚀", "🎉", "👍", "🔥", "🤖"]


def _entry(token: str, logprob: float, raw: bytes | None = None) -> dict:
    data = token.encode() if raw is None else raw
    return {"token": token, "logprob": logprob, "bytes": list(data)}


def _byte_token(raw: bytes) -> str:
    return "bytes:" + "".join(f"\\x{b:02x}" for b in raw)


def _g8(value: float) -> float:
    # The API prints float32-ish values: -0.0012345678, -3.1433802e-05, -7.25
    return float(f"{value:.8g}")


def _logprob(rng: random.Random) -> float:
    return -_g8(rng.expovariate(1.5))


def _logprobs(rng: random.Random, token: str, raw: bytes | None = None) -> dict:
    chosen = _entry(token, _g8(_logprob(rng) / 4), raw)
    tops = [dict(chosen)]
    for _ in range(4):
        alt = rng.choice(WORDS)
        tops.append(_entry(alt, _g8(chosen["logprob"] - abs(_logprob(rng)) - 0.01)))
    chosen["top_logprobs"] = tops
    return {"content": [chosen], "refusal": None}


def _chunk(choices: list, usage: dict | None = None) -> bytes:
    obj = {
        "id": ID,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "service_tier": "default",
        "system_fingerprint": FINGERPRINT,
        "choices": choices,
        "usage": usage,
    }
    return b"data: " + orjson.dumps(obj) + b"\n\n"


def usage(prompt: int, completion: int) -> dict:
    """The usage object of OpenAI's last chunk (``stream_options.include_usage``)."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _choice(delta: dict, logprobs: dict | None, finish: str | None = None) -> list:
    return [{"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}]


def events(
    chunks: int, seed: int = 20240601, parts: list[str] | None = None, *, logprobs: bool = True
):
    """Yield the capture's SSE events (bytes, one ``data:`` event each, [DONE] last).

    ``parts`` (when given) receives the text of each token chunk, in order. Without
    ``logprobs`` the chunks are plain (``"logprobs":null``, as sent when none were asked for);
    the tokens are the same."""
    rng = random.Random(seed)
    text_parts = parts if parts is not None else []

    def lp(rng: random.Random, token: str, raw: bytes | None = None) -> dict | None:
        entries = _logprobs(rng, token, raw)  # drawn either way: the same tokens
        return entries if logprobs else None

    yield _chunk(
        _choice(
            {"role": "assistant", "content": "", "refusal": None},
            {"content": [], "refusal": None} if logprobs else None,
        )
    )
    i = 0
    while i < chunks:
        if i + 1 < chunks and rng.random() < 0.004:
            emoji = rng.choice(EMOJI)
            raw = emoji.encode()
            first, second = raw[:2], raw[2:]
            yield _chunk(_choice({"content": ""}, lp(rng, _byte_token(first), first)))
            yield _chunk(_choice({"content": emoji}, lp(rng, _byte_token(second), second)))
            text_parts.append(emoji)
            i += 2
            continue
        token = rng.choice(WORDS)
        yield _chunk(_choice({"content": token}, lp(rng, token)))
        text_parts.append(token)
        i += 1
    yield _chunk(_choice({}, None, "stop"))
    yield _chunk([], usage(37, chunks))
    yield b"data: [DONE]\n\n"


def generate(chunks: int, out, seed: int = 20240601, *, logprobs: bool = True) -> dict:
    """Write ``chunks`` token chunks (plus role, finish, usage and [DONE]) to ``out``."""
    parts: list[str] = []
    write = out.write
    for event in events(chunks, seed, parts, logprobs=logprobs):
        write(event)
    return {"chunks": chunks, "text": "".join(parts)}


def capture_bytes(chunks: int, seed: int = 20240601, *, logprobs: bool = True) -> bytes:
    """The capture of ``generate`` in memory."""
    out = io.BytesIO()
    generate(chunks, out, seed, logprobs=logprobs)
    return out.getvalue()


def write_capture(path: Path, chunks: int, seed: int = 20240601, *, logprobs: bool = True) -> dict:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("wb", buffering=1 << 20) as fh:
        info = generate(chunks, fh, seed, logprobs=logprobs)
    tmp.replace(path)
    return info


def timed_reads(
    chunks: int,
    rate: float = 200.0,
    *,
    seed: int = 20240601,
    first_ms: float = 350.0,
    jitter_ms: float = 1.5,
    coalesce: float = 0.03,
) -> tuple[list[tuple[float, bytes]], float, dict]:
    """The same events as ``events()``, as network reads with times (ms from the request start).

    Token ``i`` is due at ``first_ms + i * 1000 / rate`` plus Gaussian jitter (sd ``jitter_ms``),
    kept increasing; the schedule never drifts from the nominal rate. With probability
    ``coalesce`` an event arrives in the same read as the previous one (as TCP does now and
    then). Finish, usage and [DONE] follow the last token by a few ms.
    Returns (reads, end time, info with the last token's time)."""
    rng = random.Random(seed + 1)
    step = 1000.0 / rate
    parts: list[str] = []
    all_events = list(events(chunks, seed, parts))
    reads: list[tuple[float, bytes]] = []
    last_t = 0.0
    last_token_t = 0.0
    for n, event in enumerate(all_events):
        if n == 0:
            t = first_ms - step  # role chunk
        elif n <= chunks:
            t = first_ms + (n - 1) * step + rng.gauss(0.0, jitter_ms)
        else:
            t = last_t + 1.0 + rng.random() * 2.0  # finish, usage, [DONE]
        t = round(max(t, last_t + 0.05), 3)
        if reads and 1 < n <= chunks and rng.random() < coalesce:
            prev_t, prev = reads[-1]
            reads[-1] = (prev_t, prev + event)
            t = prev_t
        else:
            reads.append((t, event))
        last_t = t
        if n == chunks:
            last_token_t = t
    end_t = round(last_t + 2.0, 3)
    return reads, end_t, {"chunks": chunks, "text": "".join(parts), "last_token_t": last_token_t}


def write_timed(path: Path, chunks: int, rate: float = 200.0, seed: int = 20240601) -> dict:
    """Write a ``streamscope.timed`` capture (docs/capture-format.md) of ``chunks`` tokens."""
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from app.captures.timed import end_line, header_line, read_line

    reads, end_t, info = timed_reads(chunks, rate, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("wb", buffering=1 << 20) as fh:
        fh.write(
            header_line(
                created="2026-01-01T00:00:00.000Z",
                source={"url": "https://api.openai.com/v1/chat/completions"},
                request={
                    "model": MODEL,
                    "stream": True,
                    "logprobs": True,
                    "top_logprobs": 5,
                    "stream_options": {"include_usage": True},
                    "messages": [{"role": "user", "content": "Write a long essay."}],
                },
                response={"status": 200, "content_type": "text/event-stream"},
            )
        )
        for t, data in reads:
            fh.write(read_line(t, data))
        fh.write(end_line(end_t, "done"))
    tmp.replace(path)
    info["reads"] = len(reads)
    info["end_t"] = end_t
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000, help="token chunks (default 100000)")
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--plain", action="store_true", help="no logprobs")
    args = parser.parse_args(argv)
    out = args.output or Path(__file__).parent / "out" / f"capture-{args.chunks}.sse"
    write_capture(out, args.chunks, args.seed, logprobs=not args.plain)
    print(f"wrote {out} ({out.stat().st_size:,} bytes, {args.chunks:,} token chunks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
