"""The live side of a websocket session: starting a run, and following one (the person who
started it, or anyone with its share link). Mixed into ``Session``, which provides ``_send``,
``_next``, ``_error``, ``live``, ``sources`` and the log fields."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import has_request_context, request

from ...live.runconfig import RunConfigError
from ...protocol import MAX_RAW_REQUEST, encode, whole_numbers
from ...services.frames import Prepared
from ...settings import Settings
from ...storage.base import token_matches
from .fanout import Follower, attach

if TYPE_CHECKING:
    from ...live.followed import Followed
    from ...live.service import LiveService
    from .endpoint import GuardedSocket

FOLLOW_TICK = 0.25  # how often a live viewer's loop looks for Stop and raw requests


class LiveViewing:
    _send: Callable[[str | Prepared], None]
    live: LiveService | None
    socket: GuardedSocket | None  # the connection's socket, shared with the run's writer
    settings: Settings
    source_name: str | None

    def _next(self, timeout: float | None) -> dict[str, Any] | None:
        raise NotImplementedError  # Session reads the page's messages

    def _error(self, code: str, message: str) -> None:
        raise NotImplementedError

    def _start(self, message: dict[str, Any]) -> None:
        assert self.live is not None
        try:
            origin = request.host_url if has_request_context() else None
            started = self.live.start(message, origin)
        except RunConfigError as exc:
            self._error("bad_run", str(exc))
            return
        run = started.run
        self.source_name = run.capture_id
        self._send(
            encode(
                "status",
                state="started",
                message=f"recording as {run.capture_id}",
                capture=run.capture_id,
                url=f"/c/{run.capture_id}",
                delete_token=run.recorder.delete_token,
            )
        )
        try:
            self._follow(run, started.title, starter=True)
        finally:
            if not run.finished:
                run.cancel()  # the starter's page went away: stop the upstream too

    def _follow(
        self, run: Followed, title: str, *, starter: bool, resume: tuple[int, int] | None = None
    ) -> None:
        """Everything so far, then the live edge, sent by the run's writer (web/fanout.py);
        this thread only reads the page's messages meanwhile."""
        self._send(run.capture_message(title))
        index = 0
        if resume is not None:  # a page that had the first events: send the rest, then follow
            catch_up, index = run.snapshot(resume[1])
            for text in catch_up:
                self._send(text)
        guarded = self.socket
        if guarded is None:
            raise RuntimeError("following a live run needs the connection's own socket")
        follower = Follower(guarded, index, self.settings.ws_send_timeout)
        attach(run, follower)
        try:
            while not follower.done.is_set():
                message = self._next(FOLLOW_TICK)
                if message is None:
                    continue
                if message["type"] == "stop" and (starter or self._may_stop(run, message)):
                    run.cancel()
                elif message["type"] == "raw_request":
                    answer = self._raw_answer(run, message)
                    if answer:
                        follower.answer(answer)
        finally:
            follower.leave()
        if follower.dropped:
            raise OSError("dropped: the page stopped reading")
        for data in follower.unsent():  # the writer has let go of this follower: send them here
            guarded.send(data)
        while True:  # afterwards, answer raw requests until the page leaves
            message = self._next(None)
            if message is not None and message["type"] == "raw_request":
                answer = self._raw_answer(run, message)
                if answer:
                    self._send(answer)

    def _may_stop(self, run: Followed, message: dict[str, Any]) -> bool:
        """A page that did not start this run on this connection (it resumed, here or on
        another process, or follows a share link) stops it with the recording's delete token."""
        token = message.get("delete_token")
        if self.live is None or not isinstance(token, str):
            return False
        record = self.live.store.get(run.capture_id)
        return record is not None and token_matches(token, record.delete_hash)

    def _raw_answer(self, run: Followed, message: dict[str, Any]) -> str | None:
        numbers = whole_numbers(message, "start", "count")
        if numbers is None:
            self._error("bad_message", "raw_request needs stream, start and count (integers)")
            return None
        start, count = numbers
        items = run.raw_texts(start, min(count, MAX_RAW_REQUEST))
        return encode("raw", stream=0, start=start, items=items)
