// The request panel's pure parts (static/js/request.js): a parameter's value as text, the
// one-line gist, and no panel without a request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gist, requestPanel, shown } from "../../static/js/request.js";

test("a value is shown as text: a string as it is, anything else as JSON", () => {
  assert.equal(shown("required"), "required");
  assert.equal(shown(0.3), "0.3");
  assert.equal(shown(true), "true");
  assert.equal(shown({ include_usage: true }), '{"include_usage":true}');
  assert.equal(shown({ a: 1 }, 2), '{\n  "a": 1\n}');
  assert.equal(shown(null), "null");
});

test("the gist counts messages and tools", () => {
  assert.equal(gist({ messages: [{}], tools: [] }), "1 message, 0 tools");
  assert.equal(gist({ messages: [{}, {}], tools: [{}] }), "2 messages, 1 tool");
});

test("no request, no panel (and no DOM is touched)", () => {
  assert.equal(requestPanel(null), null);
  assert.equal(requestPanel(undefined), null);
  assert.equal(requestPanel("text"), null);
});
