"""A presenter room's viewer page on another process than the presenter (docs/scaling.md,
"Presenter rooms"): it follows the presenter through Redis, says so when Redis goes away and it
follows the store, says so again when Redis is back, and shows the presenter's latest state."""

from __future__ import annotations

from ..roomclient import STATE, Member, make_room
from . import test_scale_out_page as scale_out
from .test_player import wait_until

pair = scale_out.pair  # two servers sharing a PostgreSQL and a Redis
STATUS = scale_out.STATUS
SEQ = "Number(document.querySelector('#player').dataset.roomApplied || 0)"


def test_a_viewer_page_on_the_other_process_is_told_and_ends_at_the_presenters_state(page, pair):
    (a, b), redis_server = pair
    room = make_room(a.port, "demos/plain-text")
    presenter = Member(a.port, room["room"], room["key"])
    try:
        page.goto(f"{b.url}/r/{room['room']}")
        page.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
        presenter.present({**STATE, "t": 100.0, "cursor": 1}, "seek")
        wait_until(page, f"{SEQ} === 1", timeout=10)

        redis_server.kill()
        wait_until(page, f"{STATUS}.includes('Redis is unreachable')", timeout=10)
        assert page.get_attribute("[data-testid=player-status]", "data-kind") == "warning"
        presenter.present({**STATE, "t": 200.0, "cursor": 2}, "seek")
        wait_until(page, f"{SEQ} === 2", timeout=10)  # through the store

        redis_server.start()
        wait_until(page, f"{STATUS}.includes('Redis is back')", timeout=10)
        presenter.present({**STATE, "t": 300.0, "cursor": 3}, "step")
        wait_until(page, f"{SEQ} === 3", timeout=10)
    finally:
        presenter.close()
        if redis_server.process is None or redis_server.process.poll() is not None:
            redis_server.start()
