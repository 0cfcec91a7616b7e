"""What findings and judges cost: inspect with its findings against inspect alone, on 100k-chunk captures.

``inspect --json`` reads a capture and sums up every stream; with findings it also judges each
stream by every rule of docs/rules.md. The baseline is inspect alone, measured in the same run
on the same bytes: the reading and the summary (fold, metrics, assembly) that findings share.
The target: inspect with findings within 1.1x of inspect alone. Three captures of 100,000
chunks: OpenAI's shape with logprobs, without them, and a quirky server's (role and usage on
every chunk, so every chunk takes the full reading and is sighted). Each measure is the best
of ``--repeat`` runs in CPU time of this process (which other processes on a shared machine
do not inflate), the two ways interleaved so a busy moment hits both alike.

The client judges (docs/judges.md) are timed apart, on the plain capture: each is a real
client in a child process, capped at ``--judge-timeout`` seconds (the server's default, 30),
and its wall time and verdict are printed (information: they are the clients' own speed).

    python -m bench findings            # 100,000 chunks
    python -m bench findings --quick    # 20,000 chunks (a smoke run)
    python -m bench findings --no-judges
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from functools import partial

import gen_capture
import orjson
from kit.report import header
from kit.table import Table, fmt_ms

from app.captures import read_capture
from app.domain.judging import judged_bytes, reference
from app.domain.rules import RULES, find
from app.domain.summary import summarize
from app.judges.registry import judges_for
from app.judges.runner import Caps, node_dir, run
from app.report import judged_summary
from app.settings import load

TARGET = 1.1


def quirky(chunks: int) -> bytes:
    """OpenAI's shape without logprobs, but with the role and a growing usage on every chunk
    (what OpenRouter and vLLM's continuous usage send)."""
    out = []
    for i, line in enumerate(gen_capture.capture_bytes(chunks, logprobs=False).split(b"\n\n")):
        if not line.startswith(b"data: {"):
            out.append(line)
            continue
        value = orjson.loads(line[6:])
        for choice in value.get("choices", []):
            choice.get("delta", {})["role"] = "assistant"
        if value.get("choices"):
            value["usage"] = gen_capture.usage(10, i)
        out.append(b"data: " + orjson.dumps(value))
    return b"\n\n".join(out)


def inspect_alone(data: bytes) -> object:
    return [summarize(stream) for stream in read_capture(data).streams]


def inspect_with_findings(data: bytes) -> object:
    return [judged_summary(stream) for stream in read_capture(data).streams]


def interleaved(ways: list[Callable[[], object]], repeat: int) -> list[float]:
    best = [float("inf")] * len(ways)
    for _ in range(repeat):
        for i, way in enumerate(ways):
            gc.collect()
            t0 = time.process_time()
            result = way()
            best[i] = min(best[i], time.process_time() - t0)
            del result
    return best


def find_alone(data: bytes, repeat: int) -> tuple[float, int]:
    """find() on streams already read (with the fold and metrics it builds itself)."""
    streams = read_capture(data).streams
    best = float("inf")
    found = 0
    for _ in range(repeat):
        t0 = time.process_time()
        found = sum(len(find(stream)) for stream in streams)
        best = min(best, time.process_time() - t0)
    return best, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 chunks")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-judges", action="store_true", help="leave the judges out")
    parser.add_argument("--judge-timeout", type=float, default=30.0, help="each judge's cap (s)")
    args = parser.parse_args(argv)
    header(argv=argv)
    chunks = 20_000 if args.quick else 100_000
    captures = {
        "logprobs": gen_capture.capture_bytes(chunks),
        "plain": gen_capture.capture_bytes(chunks, logprobs=False),
        "quirky (role, usage on every chunk)": quirky(chunks),
    }
    table = Table(f"Findings ({len(RULES)} rules) on {chunks:,}-chunk captures")
    for name, data in captures.items():
        alone, judged = interleaved(
            [partial(inspect_alone, data), partial(inspect_with_findings, data)], args.repeat
        )
        ratio = judged / alone
        table.row(
            f"{name}: inspect with findings",
            fmt_ms(judged * 1000),
            f"inspect alone {fmt_ms(alone * 1000)}",
            f"{ratio:.3f}x",
            f"<= {TARGET}x",
            ratio <= TARGET,
        )
        cost, found = find_alone(data, args.repeat)
        table.row(f"{name}: find() alone ({found} findings)", fmt_ms(cost * 1000))
    if not args.no_judges:
        judge_rows(table, captures["plain"], chunks, args.judge_timeout)
    print()
    print(table.render())
    return table.verdict()


def judge_rows(table: Table, data: bytes, chunks: int, timeout_s: float) -> None:
    """Every judge on the plain capture, one after the other (each has a core), timed."""
    (stream,) = read_capture(data).streams
    body = judged_bytes(stream)
    assert body is not None
    ours = reference(summarize(stream)["normalized"])
    folder = node_dir(load({}).data_dir)
    caps = Caps(timeout_s=timeout_s)
    for judge in judges_for(stream.dialect_name):
        t0 = time.perf_counter()
        verdict = run(judge, body, ours, caps, folder)
        wall = time.perf_counter() - t0
        said = verdict["verdict"] + (f" ({verdict['field']})" if verdict.get("field") else "")
        table.row(
            f"judge {verdict['client']} {verdict.get('version') or ''} on {chunks:,} chunks",
            f"{wall:.1f} s wall: {said}",
            "",
            "",
            f"(information; cap {timeout_s:g} s)",
        )


if __name__ == "__main__":
    raise SystemExit(main())
