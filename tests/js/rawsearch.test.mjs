// Issue 11, item 10: the raw events' filter reads the texts in pages and keeps the matches.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RawSearch } from "../../static/js/rawsearch.js";

const item = (index, text, event = null) => ({ index, text, event });

test("a filter asks one page at a time and keeps the matching indices", () => {
  const search = new RawSearch("Finish", 0);
  assert.deepEqual(search.want(5, 2), { start: 0, count: 2 });
  assert.equal(search.want(5, 2), null, "one page at a time");
  assert.equal(search.take({ stream: 0, start: 3, items: [] }), false, "not the page asked for");
  assert.equal(search.take({ stream: 0, start: 0, items: [item(0, 'data: {"finish_reason":null}'), item(1, "data: x")] }), true);
  assert.deepEqual(search.want(5, 2), { start: 2, count: 2 });
  search.take({ stream: 0, start: 2, items: [item(2, "data: y", "FINISH"), item(3, "data: z")] });
  assert.deepEqual(search.want(5, 2), { start: 4, count: 1 });
  search.take({ stream: 0, start: 4, items: [item(4, "data: finish")] });
  assert.equal(search.done(5), true);
  assert.equal(search.want(5, 2), null);
  assert.deepEqual(search.matches, [0, 2, 4]);
  assert.deepEqual([0, 1, 2, 3, 4, 9].map((raw) => search.positionOf(raw)), [0, 0, 1, 1, 2, 2]);
  assert.equal(new RawSearch("x", 0).positionOf(3), -1);
});

test("a live stream that grows is read on; an empty answer waits for more", () => {
  const search = new RawSearch("a", 0);
  search.want(2, 10);
  search.take({ stream: 0, start: 0, items: [] });
  assert.equal(search.want(2, 10), null, "the server has nothing more yet");
  assert.deepEqual(search.want(3, 10), { start: 0, count: 3 });
});
