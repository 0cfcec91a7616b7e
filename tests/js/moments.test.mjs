// Issue 11, items 7, 8 and 14: the time shown and the time in a link reopen the same screen;
// links name a token in any lane and carry the theme.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Player, State } from "../../static/js/player.js";
import { momentFor, readState, shareUrl } from "../../static/js/share.js";
import { Timeline } from "../../static/js/timeline.js";

function player(times) {
  const tl = new Timeline();
  tl.setCapture({ pace_ms: 40, streams: [{ index: 0, timed: true }] });
  tl.addEvents(0, times.map((t, i) => ({ kind: "text", seq: i, raw: i, t, choice: 0, text: String(i) })));
  tl.complete = true;
  const p = new Player(tl, { moveTo() {}, tick() {} }, { now: () => 0, requestFrame: () => {} });
  p.dataArrived();
  return { p, tl };
}

/** What a page opened with ?t=<seconds> shows: the cursor after seek(Number(t) * 1000). */
function reopened(times, seconds) {
  const { p } = player(times);
  p.seek(Number(seconds) * 1000);
  return p.cursor;
}

test("a link copied at the very end reopens the end, and the clock shows that time", () => {
  const times = [100.5, 900.25, 1482.064, 1482.064]; // the tool-call demo ends at 1482.064 ms
  const { p } = player(times);
  p.toEnd();
  assert.equal(p.state, State.ENDED);
  const moment = p.moment();
  assert.equal(moment.seconds, "1.483"); // not 1.482: that is before the last events
  assert.equal(reopened(times, moment.seconds), times.length);
  const url = shareUrl("http://h/c/x", { t: moment.seconds, speed: 1 });
  assert.equal(reopened(times, String(readState(new URL(url).search).t)), times.length);
});

test("every stepped position reopens exactly, however close its events are", () => {
  const times = [0.4, 10.0004, 10.0009, 10.5, 999.9996, 1000.0001, 2500];
  const { p } = player(times);
  for (let cursor = 0; cursor <= times.length; cursor = p.timeline.nextChunk(cursor)) {
    p.setCursor(cursor);
    const moment = p.moment();
    assert.equal(reopened(times, moment.seconds), cursor, `cursor ${cursor}: ${moment.seconds}`);
    assert.ok(moment.decimals >= 3);
    if (cursor === times.length) break;
  }
});

test("a moment prefers the time itself rounded to the ms", () => {
  assert.deepEqual(momentFor(1234.4, 1000, 2000), { seconds: "1.234", ms: 1234, decimals: 3 });
  assert.equal(momentFor(1999.7, 1000, 2000).seconds, "1.999"); // rounding up would show the next event
  assert.equal(momentFor(1500, 1000, Infinity).seconds, "1.5");
  assert.equal(momentFor(0, 0, 50).seconds, "0");
});

test("share links name a token in any lane and carry the theme in use", () => {
  const url = shareUrl("http://h/c/abc?theme=light", { t: "2.5", speed: 1, choice: 0, token: 4, lane: "reasoning", theme: "dark" });
  assert.equal(url, "http://h/c/abc?t=2.5&choice=0&token=4&lane=reasoning&theme=dark");
  const state = readState(new URL(url).search);
  assert.equal(state.lane, "reasoning");
  assert.equal(state.theme, "dark");
  assert.equal(readState("?lane=<b>").lane, "text");
  const plain = shareUrl("http://h/c/abc?theme=dark&t=1", { t: "3", speed: 1, choice: 1, token: 2, theme: null });
  assert.equal(plain, "http://h/c/abc?t=3&choice=1&token=2");
});

test("a shared link never carries the page's fragment (a room presenter's #key=)", () => {
  const url = shareUrl("http://h/r/ROOM?t=1#key=PRESENTERKEY", { t: "2", speed: 1 });
  assert.equal(url.includes("PRESENTERKEY"), false);
  assert.equal(new URL(url).hash, "");
  assert.equal(new URL(url).searchParams.get("t"), "2");
});
