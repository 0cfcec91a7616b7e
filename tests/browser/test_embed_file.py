"""Issue 28, item 24: an embed framed by a local lesson file (``file://``) loads; the other
pages still refuse to be framed (``frame-ancestors``: ``* file:`` for ``/embed/`` only)."""

from __future__ import annotations

import time


def lesson(tmp_path, src: str):
    path = tmp_path / "lesson.html"
    path.write_text(
        f'<!doctype html><meta charset="utf-8"><title>Lesson</title>'
        f'<h1>Lesson</h1><iframe id="demo" src="{src}" width="900" height="600"></iframe>',
        encoding="utf-8",
    )
    return path


def frame_of(page, url_part: str):
    deadline = time.monotonic() + 10
    while True:
        frame = next((f for f in page.frames if url_part in f.url), None)
        if frame is not None:
            return frame
        assert time.monotonic() < deadline, f"no frame for {url_part}: {page.frames}"
        page.wait_for_timeout(50)


def test_an_embed_plays_inside_a_local_lesson_file(page, server, tmp_path):
    page.goto(lesson(tmp_path, f"{server.url}/embed/demos/plain-text").as_uri())
    frame = frame_of(page, "/embed/demos/plain-text")
    frame.wait_for_selector('#player[data-loaded="true"]', state="attached", timeout=15000)
    frame.get_by_test_id("player-speed").select_option("max")
    frame.get_by_test_id("player-play").click()
    frame.wait_for_selector('#player[data-state="ended"]', state="attached", timeout=15000)
    assert frame.get_by_test_id("choice-text").first.text_content()


def test_a_full_page_still_refuses_a_local_lesson_file(page, server, tmp_path):
    page.goto(lesson(tmp_path, f"{server.url}/demos/plain-text").as_uri())
    page.wait_for_timeout(1500)
    frame = next((f for f in page.frames if "/demos/plain-text" in f.url), None)
    assert frame is None or frame.locator("#player").count() == 0
    page.errors.expect("frame")
