"""The fake OpenAI-compatible upstream (``tests/fake_upstream.py``) in its own process.

In its own process so that its writes keep their pace whatever the clients do. One more model
for the benches: ``gate:<name>:<per second>:<count>`` sends the response headers, waits until
``GET /bench/go/<name>`` (so that every viewer can attach first), then writes like ``rate:``:
``count`` chunks at that rate, tokens ``"t0 "``, ``"t1 "``, ..., each with ``x_sent_ms``
(``time.time() * 1000`` just before the write); ``gate:<name>:<per second>:<count>:<ms>``
starts that many milliseconds after the gate opens (streams out of step, as independent ones
are).

``Fake()`` starts ``python -m kit.fake`` through a ``Worker``; the process reports its URL and
runs until its stdin closes.
"""

from __future__ import annotations

import sys
import threading

from kit.cleanup import track, untrack
from kit.server import http_get
from kit.workers import Worker


class Fake:
    """The fake upstream's process, seen from the bench."""

    def __init__(self) -> None:
        self.worker = Worker("fake", {}, module="kit.fake")
        info = self.worker.wait("fake", 20)
        self.url: str = info["url"]
        self.port: int = info["port"]
        self.pid = self.worker.process.pid
        track(self)

    def go(self, gate: str) -> None:
        """Open the gate ``gate:<gate>:...`` runs wait at."""
        status, _ = http_get(self.port, f"/bench/go/{gate}")
        assert status == 200

    def stop(self) -> None:
        self.worker.stop()
        untrack(self)


def serve() -> None:
    """In the fake's process: serve until stdin closes."""
    from kit.clients import emit
    from tests.fake_upstream import FakeUpstream, Handler, chunk

    gates: dict[str, threading.Event] = {}
    lock = threading.Lock()

    def gate(name: str) -> threading.Event:
        with lock:
            return gates.setdefault(name, threading.Event())

    class GateHandler(Handler):
        def do_GET(self) -> None:
            if self.path.startswith("/bench/go/"):
                gate(self.path.rsplit("/", 1)[1]).set()
                self._whole(200, "text/plain", b"go")
                return
            super().do_GET()

        def _do_gate(self, arg: str, body: dict) -> None:
            name, per_second, count, *phase = arg.split(":")
            self._start()
            if not gate(name).wait(300):
                return
            if phase and not self._sleep(float(phase[0]) / 1000):  # out of step with the rest
                return
            if not self._paced_tokens(1 / float(per_second), int(count)):
                return
            self._write(chunk(None, "stop"))
            self._write(b"data: [DONE]\n\n")
            self._finish()

    fake = FakeUpstream()
    fake.RequestHandlerClass = GateHandler
    fake.start()
    emit("fake", url=fake.url, port=fake.port)
    sys.stdin.read()  # until the parent closes stdin
    fake.stop()


if __name__ == "__main__":
    sys.stdin.readline()  # the (empty) spec every worker gets first
    serve()
