import assert from "node:assert/strict";
import { test } from "node:test";
import { Timeline } from "../../static/js/timeline.js";

function capture(streams) {
  return { pace_ms: 40, stall_ms: 250, streams: streams.map((timed, index) => ({ index, timed, raw: 0, events: 0 })) };
}

const text = (seq, raw, t, value) => ({ kind: "text", seq, raw, t, choice: 0, text: value });

test("timed events use their real offsets; indexAtTime is an upper bound", () => {
  const tl = new Timeline();
  tl.setCapture(capture([true]));
  tl.addEvents(0, [text(0, 0, 100, "a"), text(1, 1, 150, "b"), text(2, 1, 150, "c"), text(3, 2, 400, "d")]);
  assert.deepEqual(tl.times, [100, 150, 150, 400]);
  assert.equal(tl.indexAtTime(0), 0);
  assert.equal(tl.indexAtTime(100), 1);
  assert.equal(tl.indexAtTime(149.9), 1);
  assert.equal(tl.indexAtTime(150), 3);
  assert.equal(tl.indexAtTime(1e9), 4);
  assert.equal(tl.duration, 400);
});

test("untimed streams are paced per raw event and streams follow each other", () => {
  const tl = new Timeline({ gapMs: 600 });
  tl.setCapture(capture([false, false]));
  tl.addEvents(0, [text(0, 0, null, "a"), text(1, 2, null, "b"), { kind: "diagnostic", seq: 2, raw: -1, t: null }]);
  tl.addEvents(1, [text(0, 0, null, "c"), text(1, 1, null, "d")]);
  assert.deepEqual(tl.times, [0, 80, 80, 680, 720]);
  assert.deepEqual(tl.events.map((e) => e.stream), [0, 0, 0, 1, 1]);
  assert.deepEqual(tl.events.map((e) => e.g), [0, 1, 2, 3, 4]);
});

test("stepping moves by whole raw events", () => {
  const tl = new Timeline();
  tl.setCapture(capture([true]));
  tl.addEvents(0, [text(0, 0, 1, "a"), { kind: "logprobs", seq: 1, raw: 0, t: 1, choice: 0, field: "content", entries: [] }, text(2, 1, 2, "b"), { kind: "finish", seq: 3, raw: 1, t: 2, choice: 0, reason: "stop" }, { kind: "diagnostic", seq: 4, raw: -1, t: null }]);
  assert.equal(tl.nextChunk(0), 2);
  assert.equal(tl.nextChunk(2), 4);
  assert.equal(tl.nextChunk(4), 5);
  assert.equal(tl.nextChunk(5), 5);
  assert.equal(tl.previousChunk(5), 4);
  assert.equal(tl.previousChunk(4), 2);
  assert.equal(tl.previousChunk(2), 0);
  assert.equal(tl.previousChunk(0), 0);
});

test("chunk marks give gaps and stalls for the chart", () => {
  const tl = new Timeline();
  tl.setCapture(capture([true]));
  tl.addRawMeta({ stream: 0, start: 0, t: [100, 120, 700, 720], line: [1, 3, 5, 7], kind: [0, 0, 0, 1], choices: [1, 1, 1, 0], event: [null, null, null, null] });
  tl.addEvents(0, [text(0, 0, 100, "a")]);
  const marks = tl.chunkMarks(250);
  assert.deepEqual(marks.map((m) => [m.time, m.gap, m.stall]), [[100, 100, false], [120, 20, false], [700, 580, true]]);
});

test("a page resumes from the last stream with events and its count", async () => {
  const { resumePoint } = await import("../../static/js/resume.js");
  const tl = new Timeline();
  tl.setCapture(capture([false, false]));
  assert.deepEqual(resumePoint(tl), { stream: 0, events: 0 });
  tl.addEvents(0, [text(0, 0, null, "a"), text(1, 1, null, "b")]);
  assert.deepEqual(resumePoint(tl), { stream: 0, events: 2 });
  tl.addEvents(1, [text(0, 0, null, "c")]);
  assert.deepEqual(resumePoint(tl), { stream: 1, events: 1 });
});

test("a HAR entry is replayed on its raw events' times, a stream without timing is paced", () => {
  const tl = new Timeline();
  tl.setCapture({ pace_ms: 40, stall_ms: 250, streams: [{ index: 0, timed: false, timing: "har", raw: 0, events: 0 }] });
  tl.addRawMeta({ type: "raw_meta", stream: 0, start: 0, t: [312, 912, 1512], line: [1, 4, 7], kind: [0, 0, 0], choices: [1, 1, 1], event: [null, null, null] });
  tl.addEvents(0, [text(0, 0, null, "a"), text(1, 1, null, "b"), text(2, 2, null, "c")]);
  assert.deepEqual(tl.times, [312, 912, 1512]);
  assert.equal(tl.duration, 1512);
  assert.deepEqual(tl.chunkMarks(250).map((m) => [m.time, m.stall]), [[312, false], [912, false], [1512, false]]);
});
