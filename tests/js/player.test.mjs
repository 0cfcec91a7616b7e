import assert from "node:assert/strict";
import { test } from "node:test";
import { Player, State } from "../../static/js/player.js";
import { Timeline } from "../../static/js/timeline.js";

function setup(times) {
  const tl = new Timeline();
  tl.setCapture({ pace_ms: 40, streams: [{ index: 0, timed: true }] });
  tl.addEvents(0, times.map((t, i) => ({ kind: "text", seq: i, raw: i, t, choice: 0, text: String(i) })));
  tl.complete = true;
  let now = 0;
  const frames = [];
  const moves = [];
  const renderer = { moveTo: (cursor, previous) => moves.push([previous, cursor]), tick() {} };
  const player = new Player(tl, renderer, { now: () => now, requestFrame: (fn) => frames.push(fn) });
  player.dataArrived();
  const run = (ms) => {
    now += ms;
    const pending = frames.splice(0);
    pending.forEach((fn) => fn());
  };
  return { player, moves, run, tl };
}

test("playing applies events at their times, once per frame", () => {
  const { player, moves, run } = setup([100, 200, 300]);
  assert.equal(player.state, State.PAUSED);
  player.play();
  run(50);
  assert.equal(player.cursor, 0);
  run(160);
  assert.equal(player.cursor, 2);
  assert.deepEqual(moves, [[0, 2]]);
  run(200);
  assert.equal(player.cursor, 3);
  assert.equal(player.state, State.ENDED);
});

test("speed changes while playing take effect without a jump", () => {
  const { player, run } = setup([100, 1000, 2000]);
  player.play();
  run(100);
  assert.equal(player.cursor, 1);
  player.setSpeed(10);
  run(90);
  assert.equal(player.cursor, 2);
  assert.ok(Math.abs(player.time() - 1000) < 1e-6);
});

test("seek, step and loop are local and exact", () => {
  const { player, run } = setup([100, 200, 300, 400]);
  player.seek(250);
  assert.equal(player.cursor, 2);
  player.stepForward();
  assert.equal(player.cursor, 3);
  assert.equal(player.time(), 300);
  player.stepBack();
  player.stepBack();
  assert.equal(player.cursor, 1);
  player.toEnd();
  assert.equal(player.state, State.ENDED);
  player.loop = true;
  player.play();
  assert.equal(player.cursor, 0);
  run(450);
  assert.equal(player.state, State.PLAYING);
  assert.equal(player.cursor, 0); // looped back to the start
});

test("max speed advances in bounded batches per frame", () => {
  const times = Array.from({ length: 10000 }, (_, i) => i);
  const { player, run } = setup(times);
  player.setSpeed("max");
  player.play();
  run(16);
  assert.equal(player.cursor, 4000);
  run(16);
  run(16);
  assert.equal(player.cursor, 10000);
  assert.equal(player.state, State.ENDED);
});

test("a cursor set with a time of its screen keeps that time (a pause mid-stall)", () => {
  const { player } = setup([100, 922, 3000]);
  player.setCursor(2, 1609); // paused between the second and third events, as a presenter was
  assert.equal(player.cursor, 2);
  assert.equal(player.time(), 1609);
  player.setCursor(2, 3500); // not a time of this screen: the cursor's own
  assert.equal(player.time(), 922);
  player.setCursor(1);
  assert.equal(player.time(), 100);
});
