import assert from "node:assert/strict";
import { test } from "node:test";
import { Clock } from "../../static/js/clock.js";

function fakeWall() {
  let now = 1000;
  return { now: () => now, advance: (ms) => (now += ms) };
}

test("a stopped clock does not move", () => {
  const wall = fakeWall();
  const clock = new Clock(wall.now);
  wall.advance(500);
  assert.equal(clock.time(), 0);
});

test("time runs at the set speed and speed changes keep the position", () => {
  const wall = fakeWall();
  const clock = new Clock(wall.now);
  clock.start();
  wall.advance(100);
  assert.equal(clock.time(), 100);
  clock.setSpeed(10);
  assert.equal(clock.time(), 100);
  wall.advance(100);
  assert.equal(clock.time(), 1100);
  clock.setSpeed(0.25);
  wall.advance(400);
  assert.equal(clock.time(), 1200);
});

test("stop keeps the time, set jumps, start resumes", () => {
  const wall = fakeWall();
  const clock = new Clock(wall.now);
  clock.start();
  wall.advance(50);
  clock.stop();
  wall.advance(1000);
  assert.equal(clock.time(), 50);
  clock.set(5000);
  clock.start();
  wall.advance(10);
  assert.equal(clock.time(), 5010);
});
