"""What ``curl -v`` and ``curl --trace-ascii`` output holds of the request (docs/formats.md,
"curl"; docs/timeline.md, "The request").

``curl -v`` writes, on standard error, ``* `` notes (``* Connected to HOST (IP) port N``, the
TLS handshake), the request line and headers after ``> ``, the response's status line and
headers after ``< `` and ``{ [N bytes data]`` marks; the body (on standard output, so in the
capture when it was taken with ``2>&1``) follows the response headers. It never shows the body
sent with ``-d``. ``--trace-ascii`` writes each thing sent or received as a block
(``=> Send header``, ``=> Send data``, ``<= Recv header``, ``<= Recv data``) of lines
``OFFSET: text``, cut at 64 bytes and at each CRLF; the body written to standard output may sit
between the blocks.

``parse`` gives the request (its line, Host, the headers that matter, the body a trace holds),
the last response head, and the response body: the body lines, without curl's own lines. The
reader reads the response from those two put together, as ``curl -i`` shows it: a raw event's
line and byte count in that text, not in the file.
Secrets: no header value but the content type is kept, the URL goes through ``scrub_url`` and a
body through the sweep, so no key reaches a view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from .scrub import Redactions, scrub_url
from .scrub.text import sweep

# The first line of a curl -v or --trace-ascii capture, and a request line after "> ".
_VERBOSE_START = re.compile(rb"\A(?:\* |> |< |== Info: |=> Send |<= Recv )")
_REQUEST_LINE = re.compile(rb"(?m)^(?:> |[0-9a-f]{4}: )([A-Z]+) (\S+) HTTP/[0-9.]+\r?$")
_TRACE_BLOCK = re.compile(rb"(?:=> Send|<= Recv) (header|data|SSL data), (\d+) bytes")
_TRACE_LINE = re.compile(rb"([0-9a-f]{4,8}): ")
_CONNECTED = re.compile(rb"Connected to (\S+) \(([^)]*)\) port (\d+)")
_TLS = re.compile(rb"SSL connection|TLSv1|ALPN|Server certificate")
_CURL_NOISE = re.compile(rb"(?:\* |> |< |\{ \[|\} \[|== Info: |=> Send |<= Recv )")
TRACE_WIDTH = 64
NO_BODY = "curl -v does not show the body it sent (capture with --trace-ascii - to keep it)"


def kind(text: bytes) -> str | None:
    """``verbose`` or ``trace`` when the text (its start without blanks) is curl's output of
    that kind and holds a request line; else None."""
    if not _VERBOSE_START.match(text) or not _REQUEST_LINE.search(text):
        return None
    return "trace" if text.startswith((b"== Info: ", b"=> Send ")) else "verbose"


@dataclass
class Exchange:
    method: str | None = None
    target: str | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    sent: bytes | None = None  # the body a trace's "Send data" blocks hold
    port: int | None = None
    tls: bool = False
    response_head: bytes = b""  # "HTTP/x status" and its headers, as curl -i shows them
    body: bytes = b""  # the response body: the capture's lines that are not curl's own

    def header(self, name: str) -> str | None:
        found = [v for k, v in self.headers if k.lower() == name]
        return found[-1] if found else None

    def url(self) -> str | None:
        """The request's URL, scrubbed; its scheme ``//`` (unknown) when the capture does not
        say: no TLS note, no ``Connected to`` port, no ``:443``/``:80`` in Host."""
        if self.target is None:
            return None
        if self.target.startswith(("http://", "https://")):  # through a proxy: the whole URL
            return scrub_url(self.target, Redactions()) or None
        host = self.header("host")
        if host is None:
            return None
        if self.tls or self.port == 443 or host.endswith(":443"):
            scheme = "https:"
        elif self.port is not None or host.endswith(":80"):
            scheme = "http:"  # curl -v notes the TLS handshake of every https connection
        else:
            scheme = ""
        return scrub_url(f"{scheme}//{host}{self.target}", Redactions()) or None

    def summary(self) -> dict[str, Any]:
        """What a stream keeps of the request (``Stream.request``), as a HAR entry's summary."""
        out: dict[str, Any] = {"method": self.method, "url": self.url()}
        content_type = self.header("content-type")
        if content_type is not None:
            out["content_type"] = content_type
        if self.sent is None:
            out["note"] = NO_BODY
            return out
        clean = sweep(self.sent, Redactions())
        try:
            body = orjson.loads(clean)
        except orjson.JSONDecodeError:
            out["note"] = f"the body sent ({len(self.sent):,} bytes) is not JSON"
            return out
        out["body"] = body
        return out


def parse(data: bytes, how: str) -> Exchange:
    return _trace(data) if how == "trace" else _verbose(data)


def _verbose(data: bytes) -> Exchange:
    out = Exchange()
    lines = data.splitlines(keepends=True)
    request: list[bytes] | None = None
    response: list[bytes] | None = None
    body_from = len(lines)
    for number, line in enumerate(lines):
        bare = line.rstrip(b"\r\n")
        if bare.startswith(b"* "):
            _note(out, bare[2:])
        elif bare.startswith(b">"):
            text = bare[2:]
            if _REQUEST_LINE.match(bare):
                request = [text]
            elif request is not None and text:
                request.append(text)
        elif bare.startswith(b"<"):
            text = bare[2:]
            if text.startswith(b"HTTP/"):
                response = [text]
            elif response is not None and text:
                response.append(text)
            elif response is not None:
                body_from = number + 1
    if request:
        _request(out, request)
    if response:
        out.response_head = b"\r\n".join(response) + b"\r\n\r\n"
    out.body = b"".join(
        line for line in lines[body_from:] if not _CURL_NOISE.match(line) and line.strip() != b"<"
    )
    return out


def _trace(data: bytes) -> Exchange:
    out = Exchange()
    blocks: list[tuple[bytes, bytes, list[bytes], int]] = []  # (direction, kind, lines, size)
    body: list[bytes] = []
    lines = data.splitlines(keepends=True)
    for line in lines:
        bare = line.rstrip(b"\r\n")
        block = _TRACE_BLOCK.match(bare)
        if block:
            blocks.append((bare[:2], block.group(1), [], int(block.group(2))))
        elif bare.startswith(b"== Info: "):
            _note(out, bare[9:])
            blocks.append((b"", b"", [], 0))
        elif blocks and blocks[-1][0] and _TRACE_LINE.match(bare):
            blocks[-1][2].append(bare)
        else:
            body.append(line)
    sent_head = b"".join(untrace(b[2], b[3]) for b in blocks if b[:2] == (b"=>", b"header"))
    heads = sent_head.split(b"\r\n\r\n")
    request = [h for h in heads if h.strip()]
    if request:
        _request(out, request[-1].split(b"\r\n"))
    sent = [untrace(b[2], b[3]) for b in blocks if b[:2] == (b"=>", b"data")]
    if sent:
        out.sent = b"".join(sent)
    received = b"".join(untrace(b[2], b[3]) for b in blocks if b[:2] == (b"<=", b"header"))
    responses = [h for h in received.split(b"\r\n\r\n") if h.strip()]
    if responses:
        out.response_head = responses[-1] + b"\r\n\r\n"
    out.body = b"".join(body)
    return out


def untrace(lines: list[bytes], size: int) -> bytes:
    """A trace block's bytes from its ``OFFSET: text`` lines and its size: a line that ends
    two bytes before the next line's offset (or the block's end) ended at a CRLF, which curl
    does not print; one cut at the width did not. Bytes curl printed as ``.`` stay ``.``."""
    parsed = []
    for line in lines:
        match = _TRACE_LINE.match(line)
        if match:
            parsed.append((int(match.group(1), 16), line[match.end() :]))
    out = bytearray()
    for index, (offset, text) in enumerate(parsed):
        out += text
        end = parsed[index + 1][0] if index + 1 < len(parsed) else size
        gap = end - offset - len(text)
        # gap 2: a CRLF; another gap: the text changed length (scrubbed), cut where it was short
        if gap == 2 or (gap not in (0, 2) and len(text) < TRACE_WIDTH and index + 1 < len(parsed)):
            out += b"\r\n"
    return bytes(out)


def _note(out: Exchange, text: bytes) -> None:
    connected = _CONNECTED.search(text)
    if connected:
        out.port = int(connected.group(3))
    if _TLS.search(text):
        out.tls = True


def _request(out: Exchange, lines: list[bytes]) -> None:
    first = _REQUEST_LINE.match(b"> " + lines[0])
    if first is None:
        return
    out.method = first.group(1).decode()
    out.target = first.group(2).decode("latin-1")
    out.headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            out.headers.append((name.decode("latin-1").strip(), value.decode("latin-1").strip()))
