"""A small fault-injecting TCP proxy on loopback, for tests.

Between a client and a server it can add latency to every piece, cut what flows into small
slices, reset a connection after N bytes from the server, or reset every open connection on
demand (``drop_all``). Faults apply to the server-to-client direction, where streams flow.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from dataclasses import dataclass


@dataclass
class Faults:
    latency_ms: float = 0.0
    slice_bytes: int = 0  # 0: forward reads whole
    reset_after: int = 0  # 0: never
    reset_connections: int = 1_000_000  # how many (websocket) connections the reset applies to
    websocket_only: bool = False  # faults only on connections that ask for /ws


class FaultProxy:
    def __init__(self, target_port: int, faults: Faults | None = None) -> None:
        self.target_port = target_port
        self.faults = faults or Faults()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._open: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._stopping = False
        self.connections = 0
        self.websockets = 0
        self.resets = 0
        threading.Thread(target=self._accept, daemon=True, name="fault-proxy").start()

    def _accept(self) -> None:
        while not self._stopping:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            server = socket.create_connection(("127.0.0.1", self.target_port))
            first = client.recv(65536)  # the request line tells a websocket from a page
        except OSError:
            client.close()
            return
        websocket = first.startswith(b"GET /ws")
        with self._lock:
            self.connections += 1
            if websocket:
                self.websockets += 1
            number = self.websockets if websocket else 0
            self._open.append((client, server))
        faulty = websocket or not self.faults.websocket_only
        try:
            server.sendall(first)
        except OSError:
            return
        threading.Thread(
            target=self._pipe, args=(client, server, False, number, faulty), daemon=True
        ).start()
        self._pipe(server, client, True, number, faulty)

    def _pipe(
        self,
        source: socket.socket,
        sink: socket.socket,
        downstream: bool,
        number: int,
        faulty: bool,
    ) -> None:
        faults = self.faults
        downstream = downstream and faulty
        sent = 0
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if downstream and faults.latency_ms:
                    time.sleep(faults.latency_ms / 1000)
                pieces = [data]
                if downstream and faults.slice_bytes:
                    pieces = [
                        data[i : i + faults.slice_bytes]
                        for i in range(0, len(data), faults.slice_bytes)
                    ]
                for piece in pieces:
                    if (
                        downstream
                        and faults.reset_after
                        and number <= faults.reset_connections
                        and sent + len(piece) > faults.reset_after
                    ):
                        sink.sendall(piece[: faults.reset_after - sent])
                        self._reset(source, sink)
                        return
                    sink.sendall(piece)
                    sent += len(piece)
                    if downstream and faults.slice_bytes:
                        time.sleep(0.0005)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def _reset(self, *socks: socket.socket) -> None:
        self.resets += 1
        for sock in socks:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                # shutdown wakes the other pipe thread's blocked recv (a bare close would not
                # release the socket while it waits); close with linger 0 then sends an RST.
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            with contextlib.suppress(OSError):
                sock.close()

    def drop_all(self) -> None:
        with self._lock:
            pairs, self._open = self._open, []
        for client, server in pairs:
            self._reset(client, server)

    def stop(self) -> None:
        self._stopping = True
        self.listener.close()
        self.drop_all()
