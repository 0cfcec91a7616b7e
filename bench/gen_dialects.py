"""Write a long capture in each dialect Streamscope reads, for ``bench_parse.py``'s per-dialect
rows, with the floor that reads it.

Each capture has the framing and payload shapes of a real capture of that dialect in
``tests/captures/dialects`` (see its SOURCES.md), compact JSON as the servers send it, the
head and tail events of a real response, and ``events`` text deltas in between (tokens drawn
from ``gen_capture.WORDS``, seeded): Anthropic Messages, OpenAI Responses, Cohere v2 and
OpenAI chat completions (plain chunks, ``gen_capture``) as SSE, Gemini
``streamGenerateContent?alt=sse``, OpenAI legacy completions, Ollama NDJSON lines and AWS
Bedrock ConverseStream binary event-stream frames.

The floor of a dialect (``floor(name, data)``) is the least a reader must do and keep: split
the container (lines, or event-stream frames by their length prelude, CRCs not checked),
``orjson.loads`` each payload, keep every text fragment (a ``str``, as the product keeps it)
and drop the parsed payload. ``floor_objects`` adds what Streamscope's timeline holds for
the same reading, one raw event per payload and one text event per fragment, made as cheaply as
Python can: no reader with one object per event does less (information beside the floor).
``floor_checked`` is the event-stream floor with each frame's two CRCs checked, as the format
asks of every reader (botocore's and Streamscope's check both): information, to say how much
of a reader's cost over the floor is that check.

    python -m bench gen-dialects --events 100000      # writes bench/out/<dialect>-100k.*
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate, repeat
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (ROOT, HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import gen_capture  # noqa: E402

from app.domain.events import RawEvent, TextDelta  # noqa: E402
from app.domain.eventstream_format import encode_frame, encode_header  # noqa: E402

OUT = HERE / "out"
dumps = orjson.dumps
Keep = Callable[[str], None]


def _tokens(events: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(events):
        yield rng.choice(gen_capture.WORDS)


def _sse(value: Any, event: str | None = None) -> bytes:
    head = b"event: " + event.encode() + b"\n" if event else b""
    return head + b"data: " + dumps(value) + b"\n\n"


# ---------------------------------------------------------------------------- Anthropic
def anthropic(events: int, seed: int) -> Iterator[bytes]:
    message: dict[str, Any] = {
        "model": "claude-sonnet-4-5-20250929",
        "id": "msg_017A4s3HAsrqf5d2WvBmrpLr",
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 17, "cache_creation_input_tokens": 0, "output_tokens": 1},
    }
    yield _sse({"type": "message_start", "message": message}, "message_start")
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    yield _sse(block, "content_block_start")
    yield _sse({"type": "ping"}, "ping")
    for token in _tokens(events, seed):
        delta = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": token},
        }
        yield _sse(delta, "content_block_delta")
    yield _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
    yield _sse(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"input_tokens": 17, "output_tokens": events},
        },
        "message_delta",
    )
    yield _sse({"type": "message_stop"}, "message_stop")


def anthropic_text(value: Any, keep: Keep) -> None:
    if value["type"] == "content_block_delta":
        keep(value["delta"]["text"])


# ---------------------------------------------------------------------------- OpenAI Responses
RESP_ID = "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed"
ITEM_ID = "msg_67e554a28bec8191b56d3e2331eff88006c52f0e511c76ed"


def _response(status: str, output: list[Any], usage: Any) -> dict[str, Any]:
    return {
        "id": RESP_ID,
        "object": "response",
        "created_at": 1743082658,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": "gpt-4o-2024-08-06",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "usage": usage,
        "metadata": {},
    }


def responses(events: int, seed: int) -> Iterator[bytes]:
    seq = iter(range(1 << 30))
    yield _sse(
        {
            "type": "response.created",
            "sequence_number": next(seq),
            "response": _response("in_progress", [], None),
        },
        "response.created",
    )
    item = {
        "type": "message",
        "id": ITEM_ID,
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    yield _sse(
        {
            "type": "response.output_item.added",
            "sequence_number": next(seq),
            "output_index": 0,
            "item": item,
        },
        "response.output_item.added",
    )
    part = {"type": "output_text", "text": "", "annotations": []}
    yield _sse(
        {
            "type": "response.content_part.added",
            "sequence_number": next(seq),
            "item_id": ITEM_ID,
            "output_index": 0,
            "content_index": 0,
            "part": part,
        },
        "response.content_part.added",
    )
    parts: list[str] = []
    for token in _tokens(events, seed):
        parts.append(token)
        yield _sse(
            {
                "type": "response.output_text.delta",
                "sequence_number": next(seq),
                "item_id": ITEM_ID,
                "output_index": 0,
                "content_index": 0,
                "delta": token,
            },
            "response.output_text.delta",
        )
    text = "".join(parts)
    done_part = {"type": "output_text", "text": text, "annotations": []}
    yield _sse(
        {
            "type": "response.output_text.done",
            "sequence_number": next(seq),
            "item_id": ITEM_ID,
            "output_index": 0,
            "content_index": 0,
            "text": text,
        },
        "response.output_text.done",
    )
    yield _sse(
        {
            "type": "response.content_part.done",
            "sequence_number": next(seq),
            "item_id": ITEM_ID,
            "output_index": 0,
            "content_index": 0,
            "part": done_part,
        },
        "response.content_part.done",
    )
    done_item = dict(item, status="completed", content=[done_part])
    yield _sse(
        {
            "type": "response.output_item.done",
            "sequence_number": next(seq),
            "output_index": 0,
            "item": done_item,
        },
        "response.output_item.done",
    )
    usage = {
        "input_tokens": 278,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": events,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 278 + events,
    }
    yield _sse(
        {
            "type": "response.completed",
            "sequence_number": next(seq),
            "response": _response("completed", [done_item], usage),
        },
        "response.completed",
    )


def responses_text(value: Any, keep: Keep) -> None:
    if value["type"] == "response.output_text.delta":
        keep(value["delta"])


# ---------------------------------------------------------------------------- Cohere v2
def cohere(events: int, seed: int) -> Iterator[bytes]:
    start = {
        "id": "6cd6ce61-bb3b-46f6-907e-fcfab45e51b6",
        "type": "message-start",
        "delta": {
            "message": {
                "role": "assistant",
                "content": [],
                "tool_plan": "",
                "tool_calls": [],
                "citations": [],
            }
        },
    }
    yield _sse(start, "message-start")
    yield _sse(
        {
            "type": "content-start",
            "index": 0,
            "delta": {"message": {"content": {"type": "text", "text": ""}}},
        },
        "content-start",
    )
    for token in _tokens(events, seed):
        yield _sse(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": token}}},
            },
            "content-delta",
        )
    yield _sse({"type": "content-end", "index": 0}, "content-end")
    usage = {
        "billed_units": {"input_tokens": 7, "output_tokens": events},
        "tokens": {"input_tokens": 69, "output_tokens": events + 1},
    }
    yield _sse(
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE", "usage": usage}},
        "message-end",
    )
    yield b"data: [DONE]\n\n"


def cohere_text(value: Any, keep: Keep) -> None:
    if value.get("type") == "content-delta":
        keep(value["delta"]["message"]["content"]["text"])


# ---------------------------------------------------------------------------- Gemini
def gemini(events: int, seed: int) -> Iterator[bytes]:
    usage = {
        "promptTokenCount": 9,
        "candidatesTokenCount": 0,
        "totalTokenCount": 9,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
    }
    last = events - 1
    for n, token in enumerate(_tokens(events, seed)):
        candidate: dict[str, Any] = {
            "content": {"parts": [{"text": token}], "role": "model"},
            "index": 0,
        }
        if n == last:
            candidate["finishReason"] = "STOP"
        usage["candidatesTokenCount"] = n + 1
        usage["totalTokenCount"] = 10 + n
        yield _sse(
            {
                "candidates": [candidate],
                "usageMetadata": usage,
                "modelVersion": "gemini-2.0-flash",
                "responseId": "bH6LaZW8Fp_3nsEPqtaSwQ4",
            }
        )


def gemini_text(value: Any, keep: Keep) -> None:
    for candidate in value["candidates"]:
        for part in candidate["content"]["parts"]:
            text = part.get("text")
            if text:
                keep(text)


# ---------------------------------------------------------------------------- legacy completions
CMPL = {
    "id": "cmpl-D8ZFN477TMm6AoQohx2jSTOJMh60M",
    "object": "text_completion",
    "created": 1770934485,
}
CMPL_MODEL = "gpt-3.5-turbo-instruct:20230824-v2"


def completions(events: int, seed: int) -> Iterator[bytes]:
    for token in _tokens(events, seed):
        choice = {"text": token, "index": 0, "logprobs": None, "finish_reason": None}
        yield _sse(dict(CMPL, choices=[choice], model=CMPL_MODEL, usage=None))
    finish = {"text": "", "index": 0, "logprobs": None, "finish_reason": "length"}
    yield _sse(dict(CMPL, choices=[finish], model=CMPL_MODEL, usage=None))
    usage = {"prompt_tokens": 14, "completion_tokens": events, "total_tokens": 14 + events}
    yield _sse(dict(CMPL, model=CMPL_MODEL, usage=usage, choices=[]))
    yield b"data: [DONE]\n\n"


def completions_text(value: Any, keep: Keep) -> None:
    for choice in value["choices"]:
        text = choice.get("text")
        if text:
            keep(text)


# ---------------------------------------------------------------------------- Ollama NDJSON
def ollama(events: int, seed: int) -> Iterator[bytes]:
    for n, token in enumerate(_tokens(events, seed)):
        line = {
            "model": "llama3",
            "created_at": f"2024-05-24T20:{26 + n // 60_000 % 30:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}294874Z",
            "message": {"role": "assistant", "content": token},
            "done": False,
        }
        yield dumps(line) + b"\n"
    yield (
        dumps(
            {
                "model": "llama3",
                "created_at": "2024-05-24T20:59:59.872905Z",
                "message": {"role": "assistant", "content": ""},
                "done_reason": "stop",
                "done": True,
                "total_duration": 1897385625,
                "load_duration": 1631208,
                "prompt_eval_count": 17,
                "prompt_eval_duration": 313560000,
                "eval_count": events,
                "eval_duration": 1577990000,
            }
        )
        + b"\n"
    )


def ollama_text(value: Any, keep: Keep) -> None:
    text = value["message"]["content"]
    if text:
        keep(text)


# ---------------------------------------------------------------------------- Bedrock frames
def _frame(name: str, payload: Any) -> bytes:
    headers = (
        encode_header(":event-type", name)
        + encode_header(":content-type", "application/json")
        + encode_header(":message-type", "event")
    )
    return encode_frame(headers, dumps(payload))


PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def bedrock(events: int, seed: int) -> Iterator[bytes]:
    rng = random.Random(seed + 7)
    yield _frame("messageStart", {"p": PAD[:18], "role": "assistant"})
    for token in _tokens(events, seed):
        pad = PAD[: rng.randrange(1, len(PAD))]
        yield _frame(
            "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": token}, "p": pad}
        )
    yield _frame("contentBlockStop", {"contentBlockIndex": 0, "p": PAD[:20]})
    yield _frame("messageStop", {"p": PAD[:10], "stopReason": "end_turn"})
    usage = {"inputTokens": 12, "outputTokens": events, "totalTokens": 12 + events}
    yield _frame("metadata", {"metrics": {"latencyMs": 4321}, "p": PAD[:5], "usage": usage})


def bedrock_text(value: Any, keep: Keep) -> None:
    delta = value.get("delta")
    if delta:
        keep(delta["text"])


def chat_plain(events: int, seed: int) -> Iterator[bytes]:
    return gen_capture.events(events, seed, logprobs=False)


def chat_text(value: Any, keep: Keep) -> None:
    for choice in value["choices"]:
        delta = choice.get("delta")
        if delta:
            text = delta.get("content")
            if text:
                keep(text)


# ---------------------------------------------------------------------------- registry, floors
@dataclass(frozen=True)
class Spec:
    name: str  # the registered dialect name (docs/dialects.md)
    container: str  # "sse", "lines" or "eventstream": how the floor splits it
    suffix: str
    events: Callable[[int, int], Iterator[bytes]]
    text: Callable[[Any, Keep], None]  # keeps the payload's text fragments


SPECS: dict[str, Spec] = {
    s.name: s
    for s in (
        Spec("chat-completions", "sse", "sse", chat_plain, chat_text),
        Spec("anthropic-messages", "sse", "sse", anthropic, anthropic_text),
        Spec("openai-responses", "sse", "sse", responses, responses_text),
        Spec("cohere", "sse", "sse", cohere, cohere_text),
        Spec("gemini", "sse", "sse", gemini, gemini_text),
        Spec("completions", "sse", "sse", completions, completions_text),
        Spec("ollama", "lines", "ndjson", ollama, ollama_text),
        Spec("bedrock-converse", "eventstream", "eventstream", bedrock, bedrock_text),
    )
}


def path_for(name: str, events: int) -> Path:
    size = f"{events // 1000}k" if events % 1000 == 0 else str(events)
    return OUT / f"{name}-{size}.{SPECS[name].suffix}"


def ensure(name: str, events: int, seed: int = 20240601) -> Path:
    path = path_for(name, events)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        with tmp.open("wb", buffering=1 << 20) as fh:
            for piece in SPECS[name].events(events, seed):
                fh.write(piece)
        tmp.replace(path)
    return path


_PRELUDE = struct.Struct(">II")
_CHECKED = struct.Struct(">III")
_CRC = struct.Struct(">I")


def payloads(container: str, data: bytes) -> Iterator[bytes]:
    """Each payload of the capture, split as cheaply as its container allows."""
    if container == "eventstream":
        pos, end, unpack = 0, len(data), _PRELUDE.unpack_from
        while pos < end:
            total, headers = unpack(data, pos)
            yield data[pos + 12 + headers : pos + total - 4]
            pos += total
        return
    if container == "lines":
        yield from (line for line in data.split(b"\n") if line)
        return
    for line in data.split(b"\n"):
        if line.startswith(b"data:"):
            payload = line[5:].lstrip(b" ")
            if payload != b"[DONE]":
                yield payload


def checked_frames(data: bytes) -> Iterator[bytes]:
    """Each event-stream payload, its frame's prelude and message CRCs checked (the split of
    ``payloads`` and two ``zlib.crc32`` calls a frame; a bad CRC raises)."""
    pos, end, unpack, crc32 = 0, len(data), _CHECKED.unpack_from, zlib.crc32
    while pos < end:
        total, headers, crc = unpack(data, pos)
        stop = pos + total - 4
        if (
            crc32(data[pos : pos + 8]) != crc
            or crc32(data[pos:stop]) != _CRC.unpack_from(data, stop)[0]
        ):
            raise ValueError(f"frame at byte {pos}: bad CRC")
        yield data[pos + 12 + headers : stop]
        pos += total


def floor_checked(name: str, data: bytes) -> list[str]:
    """The event-stream floor with both CRCs of each frame checked (module docstring)."""
    text_of, loads = SPECS[name].text, orjson.loads
    kept: list[str] = []
    keep = kept.append
    for payload in checked_frames(data):
        text_of(loads(payload), keep)
    return kept


def floor(name: str, data: bytes) -> list[str]:
    """Split + ``orjson.loads`` + keep the text fragments (module docstring)."""
    spec = SPECS[name]
    text_of, loads = spec.text, orjson.loads
    kept: list[str] = []
    keep = kept.append
    for payload in payloads(spec.container, data):
        text_of(loads(payload), keep)
    return kept


def floor_objects(name: str, data: bytes) -> tuple[list[RawEvent], list[TextDelta]]:
    """The floor, and the objects Streamscope's timeline holds for what it reads: a raw event
    per payload (its place: a number and a byte range) and a text event per fragment, each
    built as cheaply as Python allows (the places summed by ``accumulate``, the raw events
    made by ``map``). Information: the least any reader that keeps one object per event
    spends, to set against the floor (module docstring)."""
    spec = SPECS[name]
    text_of, loads = spec.text, orjson.loads
    kept: list[str] = []
    keep = kept.append
    found = list(payloads(spec.container, data))
    for payload in found:
        text_of(loads(payload), keep)
    count = len(found)
    ends = list(accumulate(map(len, found), initial=0))
    del found
    numbers = range(1, count + 1)
    raws = list(map(RawEvent, repeat(-1, count), numbers, ends[:-1], ends[1:], repeat(None)))
    texts = [TextDelta(seq=i, raw=i, choice=0, text=text) for i, text in enumerate(kept)]
    return raws, texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--dialect", choices=sorted(SPECS), action="append")
    args = parser.parse_args(argv)
    for name in args.dialect or SPECS:
        path = ensure(name, args.events)
        print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
