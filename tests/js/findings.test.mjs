import assert from "node:assert/strict";
import { test } from "node:test";
import { FindingsState, countWords, docLink, findingTime, findingUrl, wantedFinding } from "../../static/js/findings.js";
import { Timeline } from "../../static/js/timeline.js";

const finding = (over = {}) => ({ rule: "tool-call-index-missing", severity: "error", title: "t", message: "m", raw: 1, t: null, line: 4, byte: 0, count: 2, doc: "/rules#tool-call-index-missing", ...over });

test("a findings message replaces its stream's list, and the counts follow", () => {
  const state = new FindingsState();
  state.received({ type: "findings", stream: 0, findings: [finding(), finding({ severity: "info", rule: "stall" })], final: false });
  assert.deepEqual(state.counts(), { error: 1, warning: 0, info: 1 });
  state.received({ type: "findings", stream: 0, findings: [finding({ severity: "warning" })], final: true });
  assert.deepEqual(state.counts(), { error: 0, warning: 1, info: 0 });
  assert.equal(state.ofRule("tool-call-index-missing").stream, 0);
  assert.equal(state.ofRule("stall"), null);
  assert.equal(countWords({ error: 1, warning: 2, info: 0 }), "1 error, 2 warnings");
  assert.equal(countWords({ error: 0, warning: 0, info: 0 }), "none");
});

test("a finding sits at its raw event's time; the link carries ?finding= and only a rule id", () => {
  const timeline = new Timeline();
  timeline.setCapture({ pace_ms: 40, streams: [{ index: 0, timed: true, timing: "recorded", raw: 3, events: 0 }] });
  timeline.addRawMeta({ stream: 0, start: 0, t: [10, 250.5, 300], line: [1, 4, 7], kind: [0, 0, 0], choices: [1, 1, 1], event: [null, null, null] });
  timeline.addEvents(0, [{ kind: "text", raw: 0 }, { kind: "text", raw: 1 }, { kind: "text", raw: 2 }]);
  assert.equal(findingTime({ ...finding(), stream: 0 }, timeline), 250.5);
  assert.equal(findingTime({ ...finding({ raw: null }), stream: 0 }, timeline), 300);
  const url = new URL(findingUrl("https://h/c/abc?t=1.5&m=auto-0-end&theme=dark#key=s", "tool-call-index-missing"));
  assert.equal(url.searchParams.get("finding"), "tool-call-index-missing");
  assert.equal(url.searchParams.get("t"), null);
  assert.equal(url.searchParams.get("m"), null);
  assert.equal(url.searchParams.get("theme"), "dark");
  assert.equal(url.hash, "");
  assert.equal(wantedFinding("?finding=tool-call-index-missing"), "tool-call-index-missing");
  assert.equal(wantedFinding("?finding=<script>"), null);
  assert.equal(docLink(finding()), "/rules#tool-call-index-missing");
  assert.equal(docLink(finding({ doc: "javascript:alert(1)" })), null);
});
