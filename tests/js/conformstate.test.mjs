import assert from "node:assert/strict";
import { test } from "node:test";
import { compareUrl, otherId, progressOf } from "../../static/js/conformstate.js";

const entry = (name, verdict, why = `${name} ${verdict}`) => ({ case: name, verdict, why });

test("a running battery: a row per planned case, the ended ones with their verdict", () => {
  const answer = { state: "running", planned: ["plain", "n2", "long"], report: { cases: [entry("n2", "fail")] } };
  const { rows, text } = progressOf(answer);
  assert.deepEqual(rows, [
    { case: "plain", verdict: "running", why: "" },
    { case: "n2", verdict: "fail", why: "n2 fail" },
    { case: "long", verdict: "running", why: "" },
  ]);
  assert.equal(text, "Running: 1 of 3 cases done.");
  assert.equal(progressOf({ state: "running", planned: ["plain"], report: null }).text, "Running: 0 of 1 cases done.");
});

test("an ended battery says its counts, a server not reached, or why it failed", () => {
  const summary = { pass: 1, warn: 0, fail: 1, unsupported: 0 };
  const done = { state: "done", planned: ["plain", "n2"], report: { server: { reached: true }, cases: [entry("plain", "pass"), entry("n2", "fail")], summary } };
  assert.equal(progressOf(done).text, "Done: 1 pass, 0 warn, 1 fail, 0 unsupported.");
  assert.deepEqual(progressOf(done).rows.map((r) => r.verdict), ["pass", "fail"]);
  const unreached = { state: "done", planned: ["plain", "n2"], report: { server: { reached: false, error: "connection refused" }, cases: [entry("plain", "fail")], summary } };
  assert.equal(progressOf(unreached).text, "The server could not be reached: connection refused");
  assert.deepEqual(progressOf(unreached).rows.map((r) => r.verdict), ["fail", "not run"]);
  assert.equal(progressOf({ state: "failed", planned: [], error: "the battery could not run (KeyError)" }).text, "The battery failed: the battery could not run (KeyError)");
});

test("a report's text stays text: a verdict or why that is not a string is made one", () => {
  const odd = { state: "done", planned: ["plain"], report: { cases: [{ case: "plain", verdict: { x: 1 }, why: 3 }] } };
  assert.deepEqual(progressOf(odd).rows, [{ case: "plain", verdict: "[object Object]", why: "3" }]);
  assert.deepEqual(progressOf({}).rows, []);
});

test("the other report's id from its link or the id itself", () => {
  assert.equal(otherId("http://h:5000/conform/AbC_d-9"), "AbC_d-9");
  assert.equal(otherId("  /conform/AbC_d-9/?x=1#y "), "AbC_d-9");
  assert.equal(otherId("AbC_d-9"), "AbC_d-9");
  assert.equal(otherId("http://h/conform/<script>"), null);
  assert.equal(otherId(""), null);
  assert.equal(otherId("a".repeat(65)), null);
  assert.equal(compareUrl("a1", "b-2"), "/conform/a1/b-2");
});
