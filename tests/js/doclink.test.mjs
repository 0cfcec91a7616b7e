// Issue 15: the player page's replay over HTTP (doclink.js httpLink). A fake fetch stands in for
// the browser's network; what the page is delivered is the link's own doing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GONE, httpLink } from "../../static/js/doclink.js";
import { VERSION } from "../../static/js/protocol.js";

const DOC = {
  version: VERSION,
  messages: [{ type: "capture", streams: [] }, { type: "end", reason: "complete" }],
};

function fakeFetch(answers) {
  const asked = [];
  globalThis.fetch = async (url) => {
    asked.push(url);
    const [status, body] = answers(url);
    return { status, ok: status >= 200 && status < 300, json: async () => body };
  };
  return asked;
}

function link(deliver, failures, said = []) {
  const report = { failed: (text) => failures.push(text), say: (text) => said.push(text), state() {}, reconnected() {} };
  const urls = { timelineUrl: "/api/captures/X/timeline?v=abc", rawUrl: "/api/captures/X/timeline/raw?v=abc" };
  return httpLink(urls, null, deliver, report, { delays: [0, 0] });
}

test("the document's messages arrive after hello, and raw requests become raw pages", async () => {
  const asked = fakeFetch((url) => (url.includes("/raw") ? [200, { type: "raw", stream: 0, start: 40, items: [] }] : [200, DOC]));
  const got = [];
  const failures = [];
  const l = link((m) => got.push(m), failures);
  await l.start();
  assert.deepEqual(got.map((m) => m.type), ["hello", "capture", "end"]);
  assert.equal(got[0].max_raw_request, 500);
  l.send("raw_request", { stream: 0, start: 40, count: 9000 });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(asked[1], "/api/captures/X/timeline/raw?v=abc&stream=0&start=40&count=500");
  assert.equal(got.at(-1).type, "raw");
  assert.deepEqual(failures, []);
});

test("a 404 says the capture was deleted or has expired, as an error message", async () => {
  fakeFetch(() => [404, { error: { code: "no_capture" } }]);
  const got = [];
  const failures = [];
  await link((m) => got.push(m), failures).start();
  assert.deepEqual(got, [{ type: "error", code: "no_capture", message: GONE }]);
  assert.equal(GONE, "this capture was deleted or has expired");
  assert.deepEqual(failures, []);
});

test("a proxy without a server is tried again; then failures are reported with the status", async () => {
  let calls = 0;
  fakeFetch(() => (++calls < 3 ? [502, {}] : [200, DOC]));
  const got = [];
  const said = [];
  await link((m) => got.push(m), [], said).start();
  assert.equal(calls, 3);
  assert.deepEqual(got.map((m) => m.type), ["hello", "capture", "end"]);
  assert.equal(said.length, 2);
  assert.match(said[0], /502.*trying again \(attempt 1 of 2\)/);
  const asked = fakeFetch(() => [503, {}]);
  let failures = [];
  await link(() => {}, failures).start();
  assert.equal(asked.length, 3); // the first try and two more
  assert.deepEqual(failures, ["the timeline could not be read (the server answered 503)"]);
  fakeFetch(() => [500, {}]);
  failures = [];
  await link(() => {}, failures).start();
  assert.deepEqual(failures, ["the timeline could not be read (the server answered 500)"]); // not retried
  globalThis.fetch = async () => {
    throw new TypeError("Failed to fetch");
  };
  failures = [];
  await link(() => {}, failures).start();
  assert.deepEqual(failures, ["the timeline could not be read (Failed to fetch)"]);
});

test("answers after stop are dropped", async () => {
  fakeFetch((url) => (url.includes("/raw") ? [200, { type: "raw", stream: 0, start: 0, items: [] }] : [200, DOC]));
  const got = [];
  const l = link((m) => got.push(m), []);
  await l.start();
  l.send("raw_request", { stream: 0, start: 0, count: 40 });
  l.stop();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(got.at(-1).type, "end");
});
