"""``python -m kit.clients ROLE``: one client process (see ``kit/clients/__init__.py``)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from kit.clients import Clock
from kit.clients.httpreplay import replayhttp
from kit.clients.lean import lean_follow
from kit.clients.live import follow, starter
from kit.clients.proxy import proxy
from kit.clients.replay import churn, replay, replayloop
from kit.clients.rooms import presenter, roomview
from kit.clients.stall import stall

Role = Callable[[dict[str, Any], Clock], Awaitable[None]]
ROLES: dict[str, Role] = {
    "starter": starter,
    "follow": follow,
    "replay": replay,
    "replayhttp": replayhttp,
    "replayloop": replayloop,
    "churn": churn,
    "stall": stall,
    "proxy": proxy,
    "presenter": presenter,
    "roomview": roomview,
}


async def run(role: str, spec: dict[str, Any]) -> None:
    if role not in ROLES:
        raise SystemExit(f"unknown role {role}; known: {', '.join(ROLES)}")
    if role == "follow" and spec.get("lean"):
        await lean_follow(spec, Clock())
    else:
        await ROLES[role](spec, Clock())


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1], json.loads(sys.stdin.readline() or "{}")))
