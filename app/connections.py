"""What the production worker (``production.py``) does with a connection around its request,
where gunicorn's gthread worker would hold a thread at the client's pace, or its main loop.

**Gathering a request's head (request line and headers) without holding a thread.**
gunicorn's gthread worker hands a connection to a pool thread as soon as it is readable, and
that thread then blocks in the HTTP parser until the whole head has come: a client that sends
one byte, then the rest slowly, holds a thread for as long as it likes, and 70 of them take
every thread (docs/security.md, "Threads"). ``HeadReader.gather`` runs first on the pool
thread instead, reads what has arrived without blocking, and keeps it on the connection:

* the head is complete (a blank line has come): the bytes are given back to the connection's
  parser, which reads them as if from the socket, and the request is served as usual;
* not yet: the connection goes back to the worker's poller (gthread's ``_DEFER``) and comes
  back when more bytes arrive, with no thread held in between;
* past ``header_timeout`` seconds since its first look, larger than any head gunicorn would
  accept, or closed by the client: the connection is closed, at once (gthread would otherwise
  close it "gracefully" on its main loop, reading what the client still sends for up to 2 s,
  with every other connection of the worker waiting).

A kept-alive connection's next request is gathered the same way (with whatever the parser
had already read ahead).

**Closing instead of draining** (``body_unread``): gthread drains a body the app left unread
(it answered early: a 413, a 503) before keeping the connection alive, in reads of 1 KiB whose
timeout restarts with every byte, so a client sending a byte a second holds a thread for
minutes. Such a connection is closed instead.

**Lingering on the connection's own thread** (``linger``): gthread closes a connection
"gracefully" on its main loop, reading what the client still sends for up to 2 s while every
other connection of the worker waits. ``linger`` does that reading first, on the connection's
thread and for a shorter while, and shuts the socket down, so the main loop's close finds
nothing left to read. (The socket is never closed here: gthread closes it, and counts it.)
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any

from gunicorn.http.body import ChunkedReader, LengthReader
from gunicorn.workers.gthread import _DEFER

HEAD_ENDS = (b"\r\n\r\n", b"\n\n")
LINGER = 1.0  # seconds a closing connection's late bytes are read, so the answer is not reset
LINGER_BYTES = 64 * 1024


class HeadReader:
    def __init__(self, cfg: Any, timeout: float) -> None:
        self.cfg = cfg
        self.timeout = timeout
        # The largest head gunicorn's parser accepts; anything longer is refused anyway.
        self.largest = (
            cfg.limit_request_line
            + cfg.limit_request_fields * (cfg.limit_request_field_size + 2)
            + 4
        )

    def gather(self, conn: Any) -> Any:
        """True when the head is complete (and handed to the parser), ``_DEFER`` to wait on
        the poller, False to close the connection."""
        head: bytearray | None = getattr(conn, "streamscope_head", None)
        if head is None:
            head = conn.streamscope_head = bytearray()
            conn.streamscope_head_deadline = time.monotonic() + self.timeout
            if conn.parser is not None:  # kept alive: what the parser already read ahead
                head += conn.parser.unreader.take_buffered()
        closed = self._read_available(conn, head)
        if any(end in head for end in HEAD_ENDS):
            conn.streamscope_head = None
            conn.init()
            conn.parser.unreader.unread(bytes(head))
            return True
        if closed or len(head) > self.largest or time.monotonic() > conn.streamscope_head_deadline:
            conn.streamscope_head = None
            shut(conn.sock)  # no answer is owed: nothing to linger for
            return False
        return _DEFER

    @staticmethod
    def _read_available(conn: Any, head: bytearray) -> bool:
        """Append what the socket holds now; True when the client has closed its side."""
        sock = conn.sock
        sock.setblocking(False)
        try:
            while True:
                piece = sock.recv(65536)
                if not piece:
                    return True
                head += piece
                if any(end in head[-len(piece) - 3 :] for end in HEAD_ENDS):
                    return False
        except BlockingIOError:
            return False
        except OSError:
            return True
        finally:
            sock.setblocking(True)


def body_unread(conn: Any) -> bool:
    """Whether the current request's body is not read to its end (gunicorn's body readers)."""
    body = getattr(getattr(conn.parser, "mesg", None), "body", None)
    if body is None:
        return False
    reader = body.reader
    if body.buf.tell() or (getattr(reader, "buf", None) and reader.buf.tell()):
        return True
    if isinstance(reader, LengthReader):
        return bool(reader.length > 0)
    if isinstance(reader, ChunkedReader):
        return reader.parser is not None
    return not getattr(reader, "finished", True)


def linger(sock: socket.socket, timeout: float = LINGER) -> None:
    """Send our FIN, read what the client still sends (up to ``timeout`` s and
    ``LINGER_BYTES``, so the kernel does not answer it with a reset that could destroy our
    answer), then shut the socket down. gthread's own close then returns at once."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)
        deadline, drained = time.monotonic() + timeout, 0
        while drained < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            data = sock.recv(4096)
            if not data:
                break
            drained += len(data)
    shut(sock)


def shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
