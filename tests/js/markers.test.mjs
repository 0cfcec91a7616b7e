// Issue 14, markers: automatic markers from the timeline of any dialect, user markers placed on
// the player's axis, jumping between them, and the `?m=` link.
import assert from "node:assert/strict";
import { test } from "node:test";
import { autoMarkers, markerUrl, nextMarker, placeUserMarker, previousMarker } from "../../static/js/markers.js";
import { readState } from "../../static/js/share.js";
import { Timeline } from "../../static/js/timeline.js";

function timeline(streams, stallMs = 250) {
  const tl = new Timeline();
  tl.setCapture({ pace_ms: 40, stall_ms: stallMs, streams: streams.map((_, index) => ({ index, timed: true })) });
  streams.forEach(({ raw, events }, index) => {
    tl.addRawMeta({ stream: index, start: 0, t: raw.map((r) => r[0]), line: raw.map((_, i) => i + 1), kind: raw.map(() => 0), choices: raw.map((r) => r[1]), event: raw.map(() => null) });
    tl.addEvents(index, events.map((e, seq) => ({ seq, choice: 0, ...e })));
  });
  tl.complete = true;
  return tl;
}

const toolStream = {
  raw: [[100, 0], [200, 1], [300, 1], [900, 1], [950, 1], [1000, 0]],
  events: [
    { kind: "reasoning", raw: 1, text: "hmm", field: "reasoning_content" },
    { kind: "text", raw: 2, text: "Hi" },
    { kind: "tool_start", raw: 3, call: 0, name: "get_weather" },
    { kind: "tool_start", raw: 3, call: 0, name: "get_weather" },
    { kind: "tool_args", raw: 4, call: 0, text: "{}" },
    { kind: "error", raw: 4, message: "overloaded" },
    { kind: "error", raw: 4, message: "again" },
    { kind: "tool_end", raw: 5, call: 0, name: "get_weather", status: "valid" },
    { kind: "finish", raw: 5, reason: "tool_calls" },
  ],
};

test("automatic markers: first token and reasoning, each call's start and end, stalls, first error, finish", () => {
  const markers = autoMarkers(timeline([toolStream]));
  assert.deepEqual(
    markers.map((m) => [m.label, m.time, m.kind]),
    [
      ["First reasoning token", 200, "auto"],
      ["First token", 300, "auto"],
      ["Tool call starts: get_weather", 900, "auto"],
      ["Stall: 600 ms", 900, "auto"],
      ["First error", 950, "auto"],
      ["Tool call ends: get_weather (valid)", 1000, "auto"],
      ["Finish: tool_calls", 1000, "auto"],
    ],
  );
  assert.equal(markers.find((m) => m.label === "First error").note, "overloaded");
  assert.equal(new Set(markers.map((m) => m.id)).size, markers.length, "ids are unique");
  assert.equal(autoMarkers(timeline([toolStream]), 700).filter((m) => m.label.startsWith("Stall")).length, 0, "under the threshold: no stall");
});

test("a stream without a finish gets its end; several streams are named", () => {
  const bare = { raw: [[10, 1]], events: [{ kind: "text", raw: 0, text: "x" }] };
  const markers = autoMarkers(timeline([bare, bare]));
  assert.deepEqual(markers.map((m) => m.label), ["Stream 1: First token", "Stream 1: End of stream", "Stream 2: First token", "Stream 2: End of stream"]);
  assert.ok(markers[2].time > markers[1].time, "the second stream comes after the first on the axis");
});

test("user markers sit at their event or their t; jumping goes to the next and previous", () => {
  const tl = timeline([toolStream]);
  assert.equal(placeUserMarker({ id: "a", event: 7, stream: 0, label: "end" }, tl).time, 1000);
  assert.equal(placeUserMarker({ id: "b", t: 0.25, label: "t" }, tl).time, 250);
  assert.equal(placeUserMarker({ id: "c", t: 99, label: "past" }, tl).time, tl.duration);
  assert.equal(placeUserMarker({ id: "d", event: 99, label: "none" }, tl), null);
  const markers = autoMarkers(tl);
  assert.equal(nextMarker(markers, 0).label, "First reasoning token");
  assert.equal(nextMarker(markers, 200).label, "First token");
  assert.equal(previousMarker(markers, 300).label, "First reasoning token");
  assert.equal(previousMarker(markers, 200), null);
  assert.equal(nextMarker(markers, 1000), null);
});

test("a marker link carries m= instead of a moment, and reads back", () => {
  const url = markerUrl("http://h/c/abc?t=1.5&token=3&choice=0&theme=contrast", "auto-0-first-token");
  assert.equal(url, "http://h/c/abc?theme=contrast&m=auto-0-first-token");
  const state = readState(new URL(url).search);
  assert.equal(state.m, "auto-0-first-token");
  assert.equal(state.theme, "contrast");
  assert.equal(readState("?m=<b>").m, null);
});

test("a marker's link never carries the page's fragment (a room presenter's #key=)", () => {
  const url = markerUrl("http://h/r/ROOM#key=PRESENTERKEY", "mk1");
  assert.equal(url, "http://h/r/ROOM?m=mk1");
});

test("a finish the dialect labels is shown by its label (an integer reason's name), else as sent", () => {
  const stream = { raw: [[100, 1], [200, 1]], events: [{ kind: "text", raw: 0, text: "Hi" }, { kind: "finish", raw: 1, reason: 1, label: "STOP (1)" }] };
  const labels = autoMarkers(timeline([stream])).map((m) => m.label);
  assert.ok(labels.includes("Finish: STOP (1)"), labels.join(", "));
  const plain = { raw: stream.raw, events: [stream.events[0], { kind: "finish", raw: 1, reason: 1 }] };
  assert.ok(autoMarkers(timeline([plain])).map((m) => m.label).includes("Finish: 1"));
});
