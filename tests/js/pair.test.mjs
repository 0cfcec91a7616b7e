import assert from "node:assert/strict";
import { test } from "node:test";
import { firstOutputTime, kept, PairedPlayer, shiftsFor } from "../../static/js/pair.js";
import { State } from "../../static/js/player.js";
import { Timeline } from "../../static/js/timeline.js";

/** A complete timed timeline: a meta event at `meta` ms, then one text event per time. */
function timeline(meta, times) {
  const tl = new Timeline();
  tl.setCapture({ pace_ms: 40, streams: [{ index: 0, timed: true }] });
  const events = [{ kind: "meta", seq: 0, raw: 0, t: meta, fields: {} }];
  times.forEach((t, i) => events.push({ kind: "text", seq: i + 1, raw: i + 1, t, choice: 0, text: `w${i}` }));
  tl.addEvents(0, events);
  tl.complete = true;
  return tl;
}

function pair(a, b) {
  let now = 0;
  const frames = [];
  const moves = [[], []];
  const sides = [a, b].map((tl, i) => ({ timeline: tl, renderer: { moveTo: (cursor) => moves[i].push(cursor) } }));
  const player = new PairedPlayer(sides, { tick() {} }, { now: () => now, requestFrame: (fn) => frames.push(fn) });
  player.dataArrived();
  const run = (ms) => {
    now += ms;
    frames.splice(0).forEach((fn) => fn());
  };
  return { player, run, cursors: () => player.sides.map((s) => s.cursor) };
}

test("the first output and the shifts that line two sides up at it", () => {
  const a = timeline(10, [100, 200]);
  const b = timeline(10, [400, 450]);
  assert.equal(firstOutputTime(a), 100);
  assert.deepEqual(shiftsFor([a, b], "start"), [0, 0]);
  assert.deepEqual(shiftsFor([a, b], "first-token"), [0, 300]);
  assert.deepEqual(shiftsFor([a, timeline(10, [])], "first-token"), [0, 0], "a side without output is not shifted");
  assert.equal(kept({ kind: "usage" }, 1), true);
  assert.equal(kept({ kind: "text", choice: 1 }, 1), true);
  assert.equal(kept({ kind: "text", choice: 0 }, 1), false);
});

test("one clock: both sides show what is due at its time", () => {
  const { player, run, cursors } = pair(timeline(0, [100, 200, 300]), timeline(0, [150, 600]));
  assert.equal(player.state, State.PAUSED);
  assert.equal(player.duration, 600);
  player.play();
  run(160);
  assert.deepEqual(cursors(), [2, 2]);
  run(200);
  assert.deepEqual(cursors(), [4, 2], "A done at 300 ms, B still waits for 600 ms");
  run(300);
  assert.deepEqual(cursors(), [4, 3]);
  assert.equal(player.state, State.ENDED);
});

test("lined up at the first token, the later side is shifted by the difference", () => {
  const { player, cursors } = pair(timeline(0, [100, 200]), timeline(0, [400, 500]));
  player.setShifts(shiftsFor(player.sides.map((s) => s.timeline), "first-token"));
  player.seek(100);
  assert.deepEqual(cursors(), [2, 2], "both first tokens at the same moment");
  assert.equal(player.duration, 200);
});

test("a step goes to the next chunk of either side, a step back to just before the last", () => {
  const { player, cursors } = pair(timeline(0, [100, 300]), timeline(0, [200]));
  player.toStart();
  assert.deepEqual(cursors(), [1, 1]);
  player.stepForward();
  assert.deepEqual(cursors(), [2, 1]);
  assert.equal(player.time(), 100);
  player.stepForward();
  assert.deepEqual(cursors(), [2, 2]);
  player.stepForward();
  assert.deepEqual(cursors(), [3, 2]);
  assert.equal(player.state, State.ENDED);
  player.stepBack();
  assert.deepEqual(cursors(), [2, 2]);
  player.stepBack();
  assert.deepEqual(cursors(), [2, 1]);
  assert.equal(player.state, State.PAUSED);
});

test("a paused moment reopens the same screen on both sides", () => {
  const { player, cursors } = pair(timeline(0, [100.25, 300]), timeline(0, [200.5]));
  player.seek(250);
  const moment = player.moment();
  const again = pair(timeline(0, [100.25, 300]), timeline(0, [200.5]));
  again.player.seek(Number(moment.seconds) * 1000);
  assert.deepEqual(again.cursors(), cursors());
});
