"""A presenter room seen from raw websocket clients (the ``websockets`` library), for the
integration tests: make a room over the API, join it, present, read what is mirrored."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

from .wsclient import Client, connect

OWN = object()  # present() with the member's own key
STATE: dict[str, Any] = {
    "playing": False,
    "t": 250.0,
    "cursor": 6,
    "speed": 1,
    "token": None,
    "tool": None,
    "theme": None,
    "zoom": 1,
}


def api(port: int, method: str, path: str, body: Any = None) -> tuple[int, dict, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        headers_out = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers_out, json.loads(raw) if raw else {}
    finally:
        connection.close()


def make_room(port: int, capture: str = "demos/tool-calls-parallel") -> dict:
    status, _, answer = api(port, "POST", "/api/rooms", {"capture": capture})
    assert status == 201, answer
    answer["key"] = answer["presenter_url"].split("#key=", 1)[1]
    return answer


class Member:
    """One page in a room: joined, the capture received; ``room`` is the server's answer."""

    def __init__(self, port: int, room: str, key: str | None = None) -> None:
        self.ws: Client = connect(port)
        self.key = key
        message: dict[str, Any] = {"type": "join", "room": room}
        if key is not None:
            message["key"] = key
        self.ws.send(json.dumps(message))
        self.joined: list[dict] = []
        self.room: dict | None = None
        self.error: dict | None = None
        while True:
            found = self.next(10)
            assert found is not None, "the server went quiet while joining"
            self.joined.append(found)
            if found["type"] == "room":
                self.room = found
            if found["type"] == "error":
                self.error = found
                return
            if found["type"] == "end":
                return

    def next(self, timeout: float) -> dict | None:
        text = self.ws.receive(timeout=timeout)
        return None if text is None else json.loads(text)

    def present(self, state: dict | None = None, action: str = "seek", key: Any = OWN) -> None:
        """Send a presenter message with this member's key (or ``key``; None: no key)."""
        fields: dict[str, Any] = {"type": "present", "action": action, "state": state or STATE}
        chosen = self.key if key is OWN else key
        if chosen is not None:
            fields["key"] = chosen
        self.ws.send(json.dumps(fields))

    def messages(self, seconds: float) -> list[dict]:
        """Everything that arrives within ``seconds``."""
        out: list[dict] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            found = self.next(left)
            if found is not None:
                out.append(found)
        return out

    def mirror(self, timeout: float = 10) -> dict:
        """The next mirror (other messages are skipped)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            found = self.next(left)
            if found is not None and found["type"] == "mirror":
                return found
        raise AssertionError("no mirror came")

    def close(self) -> None:
        self.ws.close()
