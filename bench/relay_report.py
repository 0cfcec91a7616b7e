"""bench_relay.py's analysis: delays per token from what the page, the baseline client and
the server recorded, and the table."""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from kit.table import Table, fmt_ms, ratio, spread

TARGET_P50_MS = 10.0
TARGET_P99_MS = 50.0


def quad(s: dict[str, float]) -> str:
    return " / ".join(fmt_ms(s[k]) for k in ("p50", "p95", "p99", "max"))


def analyse_page(recorded: dict[str, Any], count: int) -> dict[str, Any]:
    sent = {int(i): s for i, s in recorded["sent"].items()}
    tokens = recorded["tokens"]
    known = [t for t in tokens if sent.get(t["i"]) is not None]
    in_order = [t["i"] for t in tokens] == list(range(count))
    dom_ok = recorded["dom"] == [f"t{i} " for i in range(count)]
    frames = recorded["frames"]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(frames)]
    return {
        "on_screen": spread([t["raf"] - sent[t["i"]] for t in known if t["raf"] is not None]),
        "dispatched": spread([t["msg"] - sent[t["i"]] for t in known if t["msg"] is not None]),
        "inserted": spread([t["ins"] - sent[t["i"]] for t in known]),
        "frame_gap": spread(gaps),
        "frames": len(frames),
        "tokens": len(tokens),
        "in_order": in_order,
        "dom_matches": dom_ok,
        "complete": in_order
        and dom_ok
        and len(known) == count
        and all(t["raf"] is not None for t in tokens),
        "other_token_elements": recorded["other"],
        "messages": recorded["messages"],
        "clock_check_ms": recorded["drift"],
        "sent": sent,
    }


def analyse_baseline(live: dict[str, Any]) -> dict[str, Any]:
    base = live["baseline"]
    attached = live["baseline_attached"]
    tokens = base["tokens"]
    order = [t[0] for t in tokens]
    first = order[0] if order else 0
    following = [
        t for t in tokens if attached is not None and t[1] is not None and t[1] >= attached
    ]
    out: dict[str, Any] = {
        "delay": spread([t[2] - t[1] for t in following]),
        "tokens": len(tokens),
        "following": len(following),
        "backlog": len(tokens) - len(following),
        "in_order": order == list(range(first, first + len(order))),
        "error": live["baseline_error"],
        "attached_ms_after_click": attached - live["clicked"] if attached else None,
        "following_set": {t[0] for t in following},
    }
    # Upstream reads in the server: t (ms since the request start, monotonic) against x_sent_ms.
    reads = base["reads"]
    pairs = [(reads[t[3]], t[1], t[2], t[0]) for t in tokens if t[3] in reads and t[1] is not None]
    if pairs:
        c = max(s - t for t, s, _, _ in pairs)  # the fastest read counts as 0 ms late
        out["read_late"] = spread([t + c - s for t, s, _, _ in pairs])
        out["read_to_client"] = spread(
            [r - (t + c) for t, s, r, i in pairs if i in out["following_set"]]
        )
    return out


def build_table(args: argparse.Namespace, result: dict[str, Any]) -> Table:
    table = Table()
    page, base = result["page"], result["baseline"]
    s, b = page["on_screen"], base["delay"]
    client = "ws client"
    table.row(
        "relay delay p50: upstream write -> token on screen (next frame)",
        fmt_ms(s["p50"]), f"{client} {fmt_ms(b['p50'])}", ratio(s["p50"], b["p50"]),
        f"< {TARGET_P50_MS:g} ms", s["p50"] < TARGET_P50_MS,
    )  # fmt: skip
    table.row(
        "relay delay p95",
        fmt_ms(s["p95"]),
        f"{client} {fmt_ms(b['p95'])}",
        ratio(s["p95"], b["p95"]),
    )
    table.row(
        "relay delay p99", fmt_ms(s["p99"]), f"{client} {fmt_ms(b['p99'])}", ratio(s["p99"], b["p99"]),
        f"< {TARGET_P99_MS:g} ms", s["p99"] < TARGET_P99_MS,
    )  # fmt: skip
    table.row(
        "relay delay max",
        fmt_ms(s["max"]),
        f"{client} {fmt_ms(b['max'])}",
        ratio(s["max"], b["max"]),
    )
    problems = [] if page["in_order"] else ["out of order"]
    problems += [] if page["dom_matches"] else ["DOM differs"]
    table.row(
        "tokens matched (on screen, in order)",
        f"{page['tokens']}/{args.count}" + (f" ({', '.join(problems)})" if problems else ""),
        f"{client} {base['following']} + {base['backlog']} in its first message (left out)"
        + ("" if base["in_order"] else ", out of order"),
        "", f"all {args.count}, in order", page["complete"] and result["end_reason"] == "done",
    )  # fmt: skip
    errors = len(result["page_errors"])
    table.row(
        "page errors / end of the run",
        f"{errors} / {result['end_reason']}", "", "", "none / done",
        errors == 0 and result["end_reason"] == "done",
    )  # fmt: skip
    floor = result.get("floor")
    if floor:
        f = floor["on_screen"]
        table.row(
            "floor: minimal page, same run (p50 / p95 / p99 / max)",
            quad(f) + ("" if floor["complete"] else f" ({floor['tokens']}/{args.count} tokens)"),
            f"live page p50 {fmt_ms(s['p50'])}", f"{ratio(s['p50'], f['p50'])} (page / floor, p50)",
        )  # fmt: skip

    def pair(st: dict[str, float]) -> str:
        return f"{fmt_ms(st['p50'])} / {fmt_ms(st['p99'])}"

    table.row(
        "in the page: message dispatched (p50 / p99)",
        pair(page["dispatched"]),
        f"ws client {pair(b)}" + (f"; floor {pair(floor['dispatched'])}" if floor else ""),
    )
    table.row(
        "in the page: element inserted (p50 / p99)",
        pair(page["inserted"]),
        f"floor {pair(floor['inserted'])}" if floor else "",
    )
    g = page["frame_gap"]
    table.row(
        "in the page: frames showing tokens; gap between them (p50 / p99)",
        f"{page['frames']} frames; {pair(g)}",
        f"floor {floor['frames']} frames; {pair(floor['frame_gap'])}" if floor else "",
    )
    if "read_late" in base:
        table.row(
            "server: upstream read, late vs the fastest read (p50 / p99)", pair(base["read_late"])
        )
        table.row("server: read -> ws client received (p50 / p99)", pair(base["read_to_client"]))
    return table
