"""A request's deadlines (app/live/deadlines.py), which live runs and proxied calls share: each
one passes when it should and not before, is named in its message, and between attempts only
the total deadline runs. A clock of plain numbers: no sleeping."""

from __future__ import annotations

from app.live.deadlines import Deadlines, httpx_timeout
from app.live.request import Timeouts

T = Timeouts(connect=2.0, first_byte=5.0, idle=3.0, total=100.0)


def fresh() -> Deadlines:
    return Deadlines(T, start=10.0, what="run")


def test_nothing_passes_before_a_request_goes_out_but_the_total():
    deadlines = fresh()
    assert deadlines.passed(10.0 + 99.0) is None
    assert deadlines.passed(10.0 + 100.5) == "the run passed its total timeout (100 s)"


def test_the_headers_are_due_within_the_first_byte_deadline_of_the_request():
    deadlines = fresh()
    deadlines.ask(20.0)
    assert deadlines.passed(25.0) is None
    assert deadlines.passed(25.5) == "no response headers within 5 s of the request"


def test_the_first_byte_is_due_within_the_first_byte_deadline_of_the_headers():
    deadlines = fresh()
    deadlines.ask(20.0)
    deadlines.answered(24.0)
    assert deadlines.passed(28.0) is None  # 8 s after the request, 4 after the headers
    message = deadlines.passed(29.5)
    assert message == "no data within 5 s of the response headers (first-byte timeout)"


def test_reads_are_due_within_the_idle_deadline_of_the_last_one():
    deadlines = fresh()
    deadlines.ask(20.0)
    deadlines.answered(21.0)
    for now in (22.0, 24.5, 27.0):
        deadlines.read(now)
    assert deadlines.first_read == 22.0
    assert deadlines.passed(30.0) is None  # long after the headers: the first byte came
    assert deadlines.passed(30.5) == "no data for 3 s (idle timeout)"


def test_between_attempts_only_the_total_runs():
    deadlines = fresh()
    deadlines.ask(20.0)
    deadlines.wait()  # a 429: the next attempt waits
    assert deadlines.passed(60.0) is None
    deadlines.ask(60.0)
    assert deadlines.passed(65.5) == "no response headers within 5 s of the request"


def test_the_total_wins_over_the_others():
    deadlines = Deadlines(T, start=0.0, what="call")
    deadlines.ask(0.0)
    deadlines.answered(1.0)
    deadlines.read(2.0)
    assert deadlines.passed(101.0) == "the call passed its total timeout (100 s)"


def test_httpx_reads_only_as_a_backstop_past_both_deadlines():
    timeout = httpx_timeout(T)
    assert timeout.connect == 2.0 and timeout.pool == 2.0
    assert timeout.read == max(T.first_byte, T.idle) + 5.0
