import assert from "node:assert/strict";
import { test } from "node:test";
import { State } from "../../static/js/player.js";
import { actionFor, stateOf, Throttle } from "../../static/js/roomstate.js";

const player = (state, time, cursor, speed = 1) => ({ state, time: () => time, cursor, speed });

test("a player's state: the exact cursor when paused, the clock's time when playing", () => {
  assert.deepEqual(stateOf(player(State.PAUSED, 1234.4, 7)), { playing: false, t: 1234, cursor: 7, speed: 1, token: null, tool: null, theme: null, zoom: 1 });
  const playing = stateOf(player(State.PLAYING, 80.6, 3, 2), { token: { lane: "text", choice: 0, token: 4 }, theme: "contrast", zoom: 2 });
  assert.equal(playing.playing, true);
  assert.equal(playing.cursor, null);
  assert.equal(playing.t, 81);
  assert.deepEqual(playing.token, { lane: "text", choice: 0, token: 4 });
  assert.equal(playing.theme, "contrast");
  assert.equal(playing.zoom, 2);
});

test("each change is named by the action that made it", () => {
  const paused = stateOf(player(State.PAUSED, 100, 2));
  assert.equal(actionFor(null, paused), "seek");
  assert.equal(actionFor(paused, { ...paused, playing: true, cursor: null }), "play");
  assert.equal(actionFor({ ...paused, playing: true, cursor: null }, paused), "pause");
  assert.equal(actionFor(paused, { ...paused, speed: 2 }), "speed");
  assert.equal(actionFor(paused, { ...paused, theme: "light" }), "theme");
  assert.equal(actionFor(paused, { ...paused, theme: "contrast" }), "theme");
  assert.equal(actionFor(paused, { ...paused, zoom: 1.5 }), "zoom");
  assert.equal(actionFor(paused, { ...paused, token: { lane: "text", choice: 0, token: 1 } }), "token");
  assert.equal(actionFor(paused, { ...paused, tool: { stream: 0, choice: 0, call: 1 } }), "tool");
  assert.equal(actionFor(paused, { ...paused, cursor: 5, t: 300 }), "seek");
  assert.equal(actionFor(paused, { ...paused, cursor: 5, t: 300 }, "step"), "step");
  assert.equal(actionFor(paused, { ...paused }), null, "nothing changed: nothing to send");
  const playing = { ...paused, playing: true, cursor: null };
  assert.equal(actionFor(playing, { ...playing, t: 900 }), "seek", "a jump while playing");
});

test("the throttle sends the first state at once and only the latest of a burst after it", () => {
  let now = 0;
  const timers = [];
  const sent = [];
  const throttle = new Throttle((value) => sent.push(value), { every: 50, now: () => now, later: (fn, ms) => timers.push({ fn, at: now + ms }) });
  throttle.push(1);
  assert.deepEqual(sent, [1]);
  now = 10;
  throttle.push(2);
  throttle.push(3);
  assert.deepEqual(sent, [1], "within the interval: waits");
  assert.equal(timers.length, 1);
  assert.equal(timers[0].at, 50);
  now = 50;
  timers.shift().fn();
  assert.deepEqual(sent, [1, 3], "only the latest of the burst");
  now = 200;
  throttle.push(4);
  assert.deepEqual(sent, [1, 3, 4]);
});
