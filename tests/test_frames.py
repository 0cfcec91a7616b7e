"""Frames built by the server: messages deflated once must inflate the same for any page,
whatever that page's decompressor has seen before, with and without permessage-deflate."""

from __future__ import annotations

import base64
import json
import os
import socket
import zlib

import pytest

from app.protocol import SUBPROTOCOL
from app.services.frames import TAIL, Prepared, deflate

from .live_server import LiveServer
from .test_live import collect
from .wsclient import connect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real server: the tests here read its websocket frames."""
    live = LiveServer(tmp_path_factory.mktemp("frames-data")).start()
    yield live
    live.stop()


def inflate_in_sequence(messages: list[bytes]) -> list[bytes]:
    """One decompressor for the whole connection, as a page with context takeover keeps."""
    inflater = zlib.decompressobj(wbits=-15)
    return [inflater.decompress(m + TAIL) for m in messages]


def test_a_message_deflated_on_its_own_inflates_after_others_with_shared_context():
    history = zlib.compressobj(wbits=-15)  # another sender's compressor, with its context
    first = b'{"type":"hello","text":"' + b"abc" * 500 + b'"}'
    first_wire = history.compress(first) + history.flush(zlib.Z_SYNC_FLUSH)
    ours = b'{"type":"events","text":"' + b"abc" * 5000 + b'"}'
    assert inflate_in_sequence([first_wire[: -len(TAIL)], deflate(ours)]) == [first, ours]


@pytest.mark.parametrize("size", [3, 125, 126, 1023, 1024, 65535, 65536, 300_000])
def test_prepared_messages_keep_their_text_in_both_forms(size):
    text = json.dumps({"type": "events", "x": "é" * size})
    prepared = Prepared.of(text)
    assert prepared.text == text
    if prepared.deflated is not None:
        assert prepared.deflated[0] & 0x40  # RSV1: compressed
        assert len(prepared.deflated) < len(prepared.plain)


def test_incompressible_messages_are_sent_plain():
    noise = base64.b85encode(os.urandom(3000)).decode()
    prepared = Prepared.of(json.dumps({"type": "events", "x": noise}))
    assert prepared.deflated is None or len(prepared.deflated) < len(prepared.plain)


@pytest.mark.integration  # a real server's websocket frames
def test_a_page_with_and_one_without_compression_get_the_same_replay(server):
    def replay(compression: str | None) -> list[dict]:
        ws = connect(server.port, compression=compression)
        try:
            ws.send(json.dumps({"type": "open", "source": {"demo": "logprobs-top"}}))
            return collect(ws)
        finally:
            ws.close()

    plain, deflated = replay(None), replay("deflate")
    assert [m["type"] for m in plain][-1] == "end"
    assert plain == deflated


@pytest.mark.integration  # a real server's websocket frames
def test_compressed_frames_are_on_the_wire_when_the_page_offers_deflate(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET /ws HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{server.port}\r\nOrigin: http://127.0.0.1:{server.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
        ).encode()
    )
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, data = data.split(b"\r\n\r\n", 1)
    assert b" 101 " in head.split(b"\r\n")[0] and b"permessage-deflate" in head.lower()
    body = json.dumps({"type": "open", "source": {"demo": "logprobs-top"}}).encode()
    mask = os.urandom(4)
    sock.sendall(
        bytes([0x81, 0x80 | len(body)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(body))
    )
    inflater = zlib.decompressobj(wbits=-15)  # the page's, for the whole connection
    kinds: list[tuple[bool, str]] = []
    while not kinds or kinds[-1][1] != "end":
        (first, payload), data = _one_frame(sock, data)
        deflated = bool(first & 0x40)
        text = inflater.decompress(payload + TAIL) if deflated else payload
        kinds.append((deflated, json.loads(text)["type"]))
    sock.close()
    assert (True, "events") in kinds, kinds  # the big messages went compressed
    assert kinds[0] == (False, "hello")


def _one_frame(sock: socket.socket, data: bytes) -> tuple[tuple[int, bytes], bytes]:
    def need(n: int) -> None:
        nonlocal data
        while len(data) < n:
            more = sock.recv(65536)
            assert more, "connection closed mid-frame"
            data += more

    need(2)
    first, size = data[0], data[1] & 0x7F
    start = 2
    if size == 126:
        need(4)
        size, start = int.from_bytes(data[2:4], "big"), 4
    elif size == 127:
        need(10)
        size, start = int.from_bytes(data[2:10], "big"), 10
    need(start + size)
    return (first, data[start : start + size]), data[start + size :]
