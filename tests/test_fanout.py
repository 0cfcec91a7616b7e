"""The live fan-out writer on real socket pairs; its frames are read back by the ``websockets``
library's own protocol parser, so a framing mistake fails here."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame
from websockets.protocol import State
from websockets.uri import parse_uri

from app.live.followed import Piece
from app.services import frames
from app.web.ws import fanout


class Guarded:
    """What the writer needs of a connection: its socket and its send lock."""

    def __init__(self, sock: socket.socket) -> None:
        self.raw = sock
        self.lock = threading.Lock()


class Run:
    """A live run's shared log, as the writer sees it."""

    def __init__(self) -> None:
        self.capture_id = "testrun123"
        self.cond = threading.Condition()
        self.log: list[Piece] = []
        self.finished = False
        self.writer = None

    def messages(self, pieces: list[Piece]):
        """The log's messages (these tests log whole messages only)."""
        return (piece.message for piece in pieces if piece.message)

    def publish(self, *texts: str, finished: bool = False) -> None:
        with self.cond:
            self.log.extend(Piece(message=t) for t in texts)
            self.finished = self.finished or finished
            self.cond.notify_all()


OPEN: list[Page] = []


@pytest.fixture(autouse=True)
def _close_pages():
    yield
    while OPEN:
        page = OPEN.pop()
        if page.follower is not None:
            page.follower.leave()
        page.server_side.close()
        page.sock.close()


class Page:
    """The browser's end of one socket pair, decoding frames like a real client."""

    def __init__(self) -> None:
        self.server_side, self.sock = socket.socketpair()
        self.follower: fanout.Follower | None = None
        OPEN.append(self)
        self.protocol = ClientProtocol(parse_uri("ws://x/ws"), state=State.OPEN, max_size=None)

    def read_until(self, count: int, timeout: float = 10.0) -> list[str]:
        got: list[str] = []
        self.sock.settimeout(timeout)
        while len(got) < count:
            data = self.sock.recv(65536)
            assert data, f"closed after {got}"
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                assert isinstance(event, Frame)
                got.append(event.data.decode())
        return got


def follow(run: Run, page: Page, index: int = 0, drop_after: float = 5.0) -> fanout.Follower:
    follower = fanout.Follower(Guarded(page.server_side), index, drop_after)
    fanout.attach(run, follower)
    page.follower = follower
    return follower


@pytest.mark.parametrize("size", [3, 125, 126, 65535, 65536, 300_000])
def test_frames_of_every_length_class_are_read_back_whole(size):
    page = Page()
    text = "é" * (size // 2) + "x" * (size % 2)
    data = frames.frame(text.encode())
    sender = threading.Thread(target=page.server_side.sendall, args=(data,))
    sender.start()
    assert page.read_until(1) == [text]
    sender.join(5)


def test_every_follower_gets_the_log_from_its_own_index_in_order():
    run = Run()
    first, late = Page(), Page()
    follow(run, first)
    run.publish("a", "b")
    assert first.read_until(2) == ["a", "b"]
    follow(run, late, index=1)  # a page that already had "a"
    run.publish("c")
    assert late.read_until(2) == ["b", "c"]
    assert first.read_until(1) == ["c"]


def test_a_finished_run_marks_its_followers_done_and_the_writer_stops():
    run = Run()
    page = Page()
    follower = follow(run, page)
    run.publish("summary", "end", finished=True)
    assert page.read_until(2) == ["summary", "end"]
    assert follower.done.wait(5) and not follower.dropped
    run.writer.thread.join(5)
    assert not run.writer.thread.is_alive()


def test_answers_from_the_viewer_thread_go_out_in_order():
    run = Run()
    page = Page()
    follower = follow(run, page)
    follower.answer(json.dumps({"type": "raw"}))
    with run.cond:
        run.cond.notify_all()
    assert page.read_until(1) == ['{"type": "raw"}']


def test_a_page_that_stops_reading_is_dropped_and_the_others_keep_up():
    run = Run()
    stalled, reading = Page(), Page()
    stalled.server_side.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    stalled_follower = follow(run, stalled, drop_after=0.5)
    follow(run, reading)
    message = "x" * 60_000
    received = 0
    deadline = time.monotonic() + 20
    while not stalled_follower.dropped and time.monotonic() < deadline:
        run.publish(message)
        received += len(reading.read_until(1))
    assert stalled_follower.dropped and stalled_follower.done.is_set()
    assert received >= 2
    run.publish("after")
    assert reading.read_until(1) == ["after"]


def test_a_viewer_that_left_is_never_written_to_again():
    run = Run()
    page = Page()
    follower = follow(run, page)
    run.publish("one")
    assert page.read_until(1) == ["one"]
    follower.leave()
    run.publish("two")
    time.sleep(0.3)
    page.sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        page.sock.recv(10)


class RunsNewThreadsFirst:
    """``threading`` for the fan-out module, where a new thread runs until it ends or blocks
    for good before ``start()`` returns: the interleaving in which a new writer for a run
    that has already finished gets all the CPU before ``attach`` goes on (issue 10)."""

    def __getattr__(self, name: str):
        return getattr(threading, name)

    class Thread(threading.Thread):
        def start(self) -> None:
            super().start()
            self.join(timeout=2)


def test_a_follower_of_a_run_that_ended_at_once_gets_the_end_whatever_the_scheduling(monkeypatch):
    monkeypatch.setattr(fanout, "threading", RunsNewThreadsFirst())
    run = Run()
    run.publish("summary", "end", finished=True)  # the run failed before anyone followed it
    page = Page()
    follower = follow(run, page)
    assert page.read_until(2, timeout=5) == ["summary", "end"]
    assert follower.done.wait(5)
    run.writer.thread.join(5)
    assert not run.writer.thread.is_alive()
