"""The pure parts of the request and resource limits (docs/security.md): which Host headers are
served, the settings derived from others, the line cap in every line-based reader, and the
counters that refuse work past a capacity."""

from __future__ import annotations

import threading
import tracemalloc

import orjson
import pytest

from app.captures import Limits, read_capture
from app.captures.timed import header_line, read_line
from app.domain.dialects.chat.assemble import assemble, plain
from app.settings import load
from app.web.bodies import BodyRules, Turns
from app.web.errors import Busy
from app.web.hosts import host_rule, split_host
from app.web.workload import Workload

CHUNK = b'{"choices":[{"index":0,"delta":{"content":"ok"}}]}'
LIMITS = Limits(max_line=1000)
LONG = b'{"x":"' + b"a" * 5000 + b'"}'


# ---------------------------------------------------------------------------- hosts
@pytest.mark.parametrize(
    ("host", "name", "port"),
    [
        ("localhost:5000", "localhost", 5000),
        ("LOCALHOST:5000", "localhost", 5000),
        ("[::1]:5000", "[::1]", 5000),
        ("example.org", "example.org", 80),
        ("[::1]", "[::1]", 80),
    ],
)
def test_host_values_are_split_into_name_and_port(host, name, port):
    assert split_host(host) == (name, port)


@pytest.mark.parametrize(
    "host", ["", ":5000", "a:b:c", "[::1", "[::1]x", "host:port", "evil.example/x:5000", "a b"]
)
def test_malformed_host_values_are_refused(host):
    assert split_host(host) is None
    assert not host_rule("127.0.0.1", 5000, "").accepts(host)


def test_a_loopback_server_answers_the_loopback_names_with_its_port():
    rule = host_rule("127.0.0.1", 5000, "")
    for host in ("127.0.0.1:5000", "localhost:5000", "[::1]:5000", "LocalHost:5000"):
        assert rule.accepts(host), host
    for host in (
        "localhost",
        "localhost:5001",
        "evil.example:5000",
        "127.0.0.2:5000",
        "10.0.0.1:5000",
    ):
        assert not rule.accepts(host), host
    assert host_rule("localhost", 80, "").accepts("localhost")  # port 80: no port in Host
    assert host_rule("::1", 5000, "").accepts("[::1]:5000")


def test_a_server_bound_to_one_address_answers_that_address_and_the_list():
    rule = host_rule("192.0.2.7", 8000, "streamscope.example, other.example:8443")
    assert rule.accepts("192.0.2.7:8000")
    assert rule.accepts("streamscope.example:8000") and rule.accepts("streamscope.example")
    assert rule.accepts("other.example:8443") and not rule.accepts("other.example:8000")
    assert not rule.accepts("localhost:8000") and not rule.accepts("192.0.2.8:8000")


def test_a_server_on_every_interface_answers_ip_addresses_but_no_other_name():
    rule = host_rule("0.0.0.0", 8000, "")
    assert rule.accepts("192.0.2.7:8000") and rule.accepts("[2001:db8::1]:8000")
    assert rule.accepts("localhost:8000")
    assert not rule.accepts("evil.example:8000") and not rule.accepts("192.0.2.7:9000")
    assert host_rule("::", 8000, "*").accepts("anything.example:1")


# ------------------------------------------------------------------ derived settings
def test_the_decompressed_cap_follows_the_upload_cap_unless_set():
    assert load({"data_dir": "/tmp/x"}, environ={}).max_decompressed_mb == 50
    environ = {"STREAMSCOPE_MAX_UPLOAD_MB": "10"}
    assert load({"data_dir": "/tmp/x"}, environ=environ).max_decompressed_mb == 10
    environ["STREAMSCOPE_MAX_DECOMPRESSED_MB"] = "30"
    assert load({"data_dir": "/tmp/x"}, environ=environ).max_decompressed_mb == 30


def test_one_address_gets_a_quarter_of_the_websocket_capacity_unless_set():
    assert load({"data_dir": "/tmp/x", "ws_capacity": 56}, environ={}).ws_per_client == 14
    assert load({"data_dir": "/tmp/x", "ws_capacity": 2}, environ={}).ws_per_client == 1
    environ = {"STREAMSCOPE_WS_PER_CLIENT": "100"}
    assert load({"data_dir": "/tmp/x", "ws_capacity": 56}, environ=environ).ws_per_client == 100


# ------------------------------------------------------------------- the line cap
def content(capture) -> str | None:
    return plain(assemble(capture.streams[0].events))["choices"][0]["message"]["content"]


def long_lines(capture) -> list[tuple[int | None, int | None]]:
    return [(d.line, d.byte) for d in capture.all_diagnostics if d.code == "line_too_long"]


def test_jsonl_skips_a_line_over_the_cap_unparsed():
    capture = read_capture(CHUNK + b"\n" + LONG + b"\n" + CHUNK + b"\n", "jsonl", LIMITS)
    assert long_lines(capture) == [(2, len(CHUNK) + 1)]
    assert content(capture) == "okok"


def test_a_json_array_skips_an_element_over_the_cap():
    data = b"[" + CHUNK + b",\n" + LONG + b",\n" + CHUNK + b"]"
    capture = read_capture(data, "json", LIMITS)
    assert long_lines(capture) == [(2, len(CHUNK) + 3)]
    assert content(capture) == "okok"


def test_the_documentation_form_skips_a_value_over_the_cap_even_across_lines():
    spread = (
        b"data: {\n" + b'  "x": "' + b"a" * 600 + b'",\n' + b'  "y": "' + b"b" * 600 + b'"\n}\n'
    )
    data = b"data: " + CHUNK + b"\n\n" + spread + b"\ndata: " + CHUNK + b"\n\n"
    capture = read_capture(data, "docs", LIMITS)
    assert [line for line, _ in long_lines(capture)] == [3]
    assert content(capture) == "okok"


def test_a_timed_capture_skips_a_record_over_the_cap():
    # The read itself (about 850 bytes) is under the cap; its record, where every quote is
    # escaped twice, is not: the record is skipped before it is parsed.
    quotes = orjson.dumps({"choices": [{"index": 0, "delta": {"content": '"' * 400}}]})
    reads = [
        read_line(1.0, b"data: " + CHUNK + b"\n\n"),
        read_line(2.0, b"data: " + quotes + b"\n\n"),
    ]
    data = header_line(created="2026-01-01T00:00:00Z") + b"".join(reads)
    capture = read_capture(data, "timed", LIMITS)
    assert [line for line, _ in long_lines(capture)] == [3]
    assert content(capture) == "ok"


def test_a_non_streaming_body_over_the_cap_is_skipped():
    body = orjson.dumps({"choices": [{"index": 0, "message": {"content": "a" * 5000}}]})
    data = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + body
    capture = read_capture(data, "curl", LIMITS)
    assert long_lines(capture) == [(4, data.index(body))]


# ---------------------------------------------------------------- counted capacity
def test_slow_work_past_the_capacity_is_refused_at_once():
    workload = Workload(2)
    workload.enter()
    workload.enter()
    with pytest.raises(Busy) as refused:
        workload.enter()
    assert refused.value.code == "capacity"
    workload.leave()
    workload.enter()


def test_bodies_received_at_once_are_bounded_per_client_and_in_all():
    turns = Turns(8)  # 2 per client
    with turns.turn("a", wait=0), turns.turn("a", wait=0):
        with pytest.raises(Busy), turns.turn("a", wait=0.05):
            pass
        others = [turns.turn(client, wait=0) for client in ("b", "b", "c", "c", "d", "d")]
        for turn in others:
            turn.__enter__()
        with pytest.raises(Busy), turns.turn("e", wait=0.05):  # 8 in all
            pass
        for turn in others:
            turn.__exit__(None, None, None)
    assert turns.active == 0


def test_a_waiting_body_gets_its_turn_when_one_ends():
    turns = Turns(4)  # 1 per client
    release = threading.Event()

    def hold() -> None:
        with turns.turn("a", wait=0):
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    while turns.active == 0:
        pass
    threading.Timer(0.1, release.set).start()
    with turns.turn("a", wait=5):
        assert turns.active == 1
    holder.join()


def test_a_body_may_take_the_grace_time_plus_a_second_per_min_rate():
    rules = BodyRules(cap_mb=50, timeout=10.0, min_rate=64 * 1024)
    assert rules.deadline(100.0, 0) == 110.0
    assert rules.deadline(100.0, 640 * 1024) == 120.0
    assert "STREAMSCOPE_BODY_TIMEOUT" in rules.too_slow()


@pytest.mark.slow  # tracemalloc on 2 MB of JSON: seconds
def test_a_payload_that_is_not_a_chunk_is_kept_as_its_text_not_parsed():
    # Parsed, a line of empty objects costs about 30 times its size; kept for the life of the
    # capture, a 50 MB upload held 1.5 GB. The payload keeps its JSON text instead.
    line = b'{"x":[' + b"{}," * 70_000 + b"{}]}"  # 210 KB
    data = (line + b"\n") * 10
    tracemalloc.start()
    try:
        capture = read_capture(data, "jsonl", Limits())
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 3 * len(data), f"{held / len(data):.1f} times the capture held"
    (first, *_) = [e for e in capture.streams[0].events if e.kind == "payload"]
    assert orjson.loads(orjson.dumps(first.to_json()))["value"] == orjson.loads(line)
