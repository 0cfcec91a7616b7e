// Issue 12: the page shows every dialect with the same lanes and cards. The pure parts: block
// state and result pairing, notes on signed and redacted reasoning, citations and their URLs,
// usage under each dialect's names, metric wording per dialect, binary raw frames. Since issue
// 27 (section 3) the page reads each block's role and what it shows from the events' views,
// which the server's dialect writes (tests/test_labels.py checks those against the same
// payloads): the events here carry the views the server sends for them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BlockState, blockNotes, compactions, itemCalls, pairResults, results, signatureShown } from "../../static/js/blocks.js";
import { citationView, safeHref } from "../../static/js/citing.js";
import { mergeUsage, usageRows } from "../../static/js/usagenames.js";
import { CHUNKS, metricDefinitions, unitOf } from "../../static/js/views/metrics.js";
import { rawLines } from "../../static/js/views/rawlist.js";

let seq = 0;
const ev = (kind, fields) => ({ kind, seq: seq++, raw: seq, choice: 0, ...fields });

function state(events) {
  const blocks = new BlockState();
  for (const event of events) blocks.apply(event);
  return blocks;
}

test("an Anthropic *_tool_result block is paired with the call its tool_use_id names", () => {
  const events = [
    ev("block_start", { block: 0, type: "server_tool_use", value: { id: "srvtoolu_1", name: "web_search" }, view: { role: "server_call" } }),
    ev("tool_start", { call: 0, index: 0, id: "srvtoolu_1", name: "web_search", type: "server_tool_use", view: { role: "server_call" } }),
    ev("block_stop", { block: 0, value: null }),
    ev("block_start", { block: 1, type: "text", value: { type: "text", text: "" }, view: { role: "text" } }),
    ev("block_stop", { block: 1, value: null }),
    ev("block_start", {
      block: 2,
      type: "web_search_tool_result",
      value: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", title: "Weather", url: "https://example.com/w" }] },
      view: { role: "tool_result", result: { for: { id: "srvtoolu_1" }, lines: [{ label: "result", text: "Weather", url: "https://example.com/w" }] } },
    }),
    ev("block_start", { block: 3, type: "mcp_tool_result", value: { tool_use_id: "nobody", content: [{ type: "text", text: "hi" }] }, view: { role: "tool_result", result: { for: { id: "nobody" }, lines: [{ label: "text", text: "hi", url: null }] } } }),
  ];
  const blocks = state(events);
  assert.equal(blocks.calls.get(0), 0, "the call lives in block 0");
  const found = results(blocks);
  assert.deepEqual(found.map((r) => [r.block, r.target]), [[2, { id: "srvtoolu_1" }], [3, { id: "nobody" }]]);
  const { byKey, orphans } = pairResults(found, [{ key: "call:0", id: "srvtoolu_1", block: 0 }]);
  assert.deepEqual(byKey.get("call:0")[0].lines, [{ label: "result", text: "Weather", url: "https://example.com/w" }]);
  assert.deepEqual(orphans.map((r) => r.block), [3], "a result naming no call of the stream is not given to another");
  // Rewinding to before the result block forgets it.
  blocks.rewind(events[5].seq);
  assert.deepEqual(results(blocks), []);
  assert.equal(blocks.calls.get(0), 0);
});

test("Gemini: code execution results answer the code before them; a signed call's block is the open one", () => {
  const blocks = state([
    ev("block_start", { block: 0, type: "functionCall", value: null, view: { role: "tool_call" } }),
    ev("tool_start", { call: 0, index: null, id: null, name: "get_country", type: "function" }),
    ev("signature", { block: 0, signature: "EpwICpkIAXLI2nxlU6gs" }),
    ev("block_stop", { block: 0, value: null }),
    ev("block_start", {
      block: 1,
      type: "executableCode",
      value: { executableCode: { language: "PYTHON", code: "print(1)" } },
      view: { role: "server_call", item: true, name: "executableCode (PYTHON)", id: null, code: "print(1)", status: "code" },
    }),
    ev("block_stop", { block: 1, value: null }),
    ev("block_start", {
      block: 2,
      type: "codeExecutionResult",
      value: { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1\n" } },
      view: { role: "tool_result", result: { for: "previous", lines: [{ label: "outcome", text: "OUTCOME_OK", url: null }, { label: "output", text: "1\n", url: null }] } },
    }),
    ev("block_stop", { block: 2, value: null }),
  ]);
  assert.equal(blocks.calls.get(0), 0, "no index: the call is in the functionCall block open when it started");
  assert.deepEqual(blockNotes(blocks), [], "the call's signature is shown on its card, not as a note");
  const [code] = itemCalls(blocks);
  assert.deepEqual([code.block, code.name, code.fragments.map((f) => f.text), code.server], [1, "executableCode (PYTHON)", ["print(1)"], true]);
  const found = results(blocks);
  assert.deepEqual(found.map((r) => [r.block, r.target, r.lines.map((l) => `${l.label}=${l.text}`)]), [[2, { block: 1 }, ["outcome=OUTCOME_OK", "output=1\n"]]]);
  assert.equal(pairResults(found, [{ key: "item:1", id: undefined, block: 1 }]).byKey.get("item:1").length, 1);
});

test("signed, redacted and encrypted reasoning are notes: never more of a signature than a short prefix", () => {
  const signature = "EugGCmMIDBgCKkC4o7+2tlTqPK2ZlQLyK9tY2Dyg+C77F+04TZ3K";
  const blocks = state([
    ev("block_start", { block: 0, type: "thinking", value: { type: "thinking", thinking: "", signature: "" }, view: { role: "reasoning" } }),
    ev("signature", { block: 0, signature }),
    ev("block_stop", { block: 0, value: null }),
    ev("block_start", { block: 1, type: "redacted_thinking", value: { type: "redacted_thinking", data: "EqkECkYIBxgCKkA8" }, view: { role: "reasoning", notes: [{ note: "redacted", text: "redacted thinking (16 bytes)" }] } }),
    ev("block_start", { block: 2, type: "reasoning", value: { id: "rs_1", type: "reasoning", encrypted_content: "gAAAA" }, view: { role: "reasoning", notes: [{ note: "encrypted", text: "encrypted reasoning (5 bytes)" }] } }),
    ev("block_stop", { block: 2, value: { id: "rs_1", type: "reasoning", encrypted_content: "gAAAAABo-longer" }, view: { notes: [{ note: "encrypted", text: "encrypted reasoning (15 bytes)" }] } }),
    ev("block_start", { block: 3, type: "reasoningContent", value: null, view: { role: "reasoning" } }),
    ev("block_delta", { block: 3, field: "redactedContent", text: "abc", view: { as: "note", note: "redacted", words: "redacted reasoning" } }),
    ev("block_delta", { block: 3, field: "redactedContent", text: "de", view: { as: "note", note: "redacted", words: "redacted reasoning" } }),
    ev("block_start", { block: 4, type: "text", value: null, view: { role: "text" } }),
    ev("signature", { block: 4, signature: "CiIB0e2Kb6Syj1a961Ef" }),
  ]);
  const notes = blockNotes(blocks);
  assert.deepEqual(
    notes.map((n) => [n.block, n.note, n.lane, n.text]),
    [
      [0, "signed", "reasoning", `thinking (block 0): signed (EugGCmMI…, ${signature.length} characters)`],
      [1, "redacted", "reasoning", "redacted thinking (16 bytes)"],
      [2, "encrypted", "reasoning", "encrypted reasoning (15 bytes)"],
      [3, "redacted", "reasoning", "redacted reasoning (5 bytes)"],
      [4, "signed", "text", "text (block 4): signed (CiIB0e2K…, 20 characters)"],
    ],
  );
  assert.ok(!notes.some((n) => n.text.includes(signature.slice(0, 9))));
  assert.equal(signatureShown("short"), "short");
});

test("a compaction summary is its own block; a rewind takes back its deltas", () => {
  const blocks = state([
    ev("block_start", { block: 0, type: "compaction", value: { type: "compaction", content: null }, view: { role: "compaction", text: "" } }),
    ev("block_delta", { block: 0, field: "content", text: "The user asked ", view: { as: "text" } }),
    ev("block_delta", { block: 0, field: "content", text: "for a summary.", view: { as: "text" } }),
  ]);
  assert.deepEqual(compactions(blocks).map((c) => [c.block, c.text]), [[0, "The user asked for a summary."]]);
  blocks.rewind(blocks.log[2].seq);
  assert.deepEqual(compactions(blocks).map((c) => c.text), ["The user asked "]);
});

test("Responses server items are cards of their own, with their progress and their done item's result", () => {
  const blocks = state([
    ev("block_start", {
      block: 1,
      type: "web_search_call",
      value: { id: "ws_1", type: "web_search_call", status: "in_progress" },
      view: { role: "server_call", item: true, name: "web_search_call", id: "ws_1", code: null, status: "in_progress" },
    }),
    { kind: "payload", seq: seq++, raw: 0, category: "server_tool", value: { type: "response.web_search_call.searching", output_index: 1 }, view: { block: 1, status: "searching" } },
  ]);
  assert.deepEqual(itemCalls(blocks).map((c) => [c.name, c.id, c.status]), [["web_search_call", "ws_1", "searching"]]);
  assert.deepEqual(results(blocks), [], "no result before the item is done");
  const lines = [
    { label: "query", text: "weather", url: null },
    { label: "source", text: "javascript:alert(1)", url: "javascript:alert(1)" },
  ];
  const done = { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "weather", sources: [{ type: "url", url: "javascript:alert(1)" }] } };
  blocks.apply(ev("block_stop", { block: 1, value: done, view: { name: "web_search_call", id: "ws_1", code: null, status: "completed", result: { for: "self", lines } } }));
  assert.equal(itemCalls(blocks)[0].status, "completed");
  assert.deepEqual(results(blocks)[0].lines, [
    { label: "query", text: "weather", url: null },
    { label: "source", text: "javascript:alert(1)", url: "javascript:alert(1)" },
  ]);
  // A function call item is not an item card: its tool_start makes its card.
  blocks.apply(ev("block_start", { block: 2, type: "function_call", value: { call_id: "call_1" }, view: { role: "tool_call" } }));
  blocks.apply(ev("tool_start", { call: 0, index: 2, id: "call_1", name: "f", type: "function_call" }));
  assert.deepEqual(itemCalls(blocks).map((c) => c.block), [1]);
});

test("only http(s) URLs become links", () => {
  for (const bad of ["javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "data:text/html,<script>alert(1)</script>", "//evil.example", "/relative", "vbscript:x", null, 42]) {
    assert.equal(safeHref(bad), null, String(bad));
  }
  assert.equal(safeHref("https://example.com/a b"), "https://example.com/a%20b");
  assert.equal(safeHref("HTTP://Example.com"), "http://example.com/");
});

test("citations in one shape, from their views", () => {
  const quoted = citationView({ role: "citation", kind: "web_search_result_location", sources: [{ title: "W", url: "https://w.example/" }], quote: "Sunny", span: null, at: null });
  assert.deepEqual(quoted, { kind: "web_search_result_location", sources: [{ title: "W", url: "https://w.example/" }], quote: "Sunny", span: null });
  const offsets = citationView({ role: "citation", kind: "url_citation", sources: [{ title: "R", url: "https://r.example/" }], quote: null, span: null, at: [6, 11] }, { blockText: "Hello world!" });
  assert.equal(offsets.span, "world");
  const sources = [{ title: "g.example", url: "https://g.example/" }];
  const byIndex = citationView({ role: "citation", kind: "grounding", sources: [], quote: null, span: "Hello", at: [0, 5], refs: [0, 7], missing: "(grounding chunk not sent)" }, { sources });
  assert.deepEqual(byIndex.sources, [{ title: "g.example", url: "https://g.example/" }, { title: "(grounding chunk not sent)", url: null }]);
  assert.equal(byIndex.span, "Hello");
  const named = citationView({ role: "citation", kind: "citation", sources: [{ title: "Doc", url: "https://c.example/" }], quote: "a snippet", span: "Hello", at: [0, 5] });
  assert.deepEqual([named.sources, named.quote, named.span], [[{ title: "Doc", url: "https://c.example/" }], "a snippet", "Hello"]);
  assert.deepEqual(citationView(undefined), { kind: "citation", sources: [], quote: null, span: null }, "an event without a view shows no source");
});

test("usage keeps each dialect's own names; chat usage keeps the names the page always gave it", () => {
  const help = { input_tokens: "prompt tokens not read from or written to the cache", cache_creation: undefined };
  const anthropic = mergeUsage([
    { input_tokens: 92, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0 }, output_tokens: 1, service_tier: "standard" },
    { output_tokens: 189, input_tokens: null },
  ]);
  assert.deepEqual(
    usageRows(anthropic, help).map((r) => [r.key, r.value, r.help]),
    [
      ["input_tokens", "92", help.input_tokens],
      ["cache_read_input_tokens", "0", null],
      ["cache_creation.ephemeral_5m_input_tokens", "0", null],
      ["output_tokens", "189", null],
      ["service_tier", "standard", null],
    ],
    "message_delta's cumulative usage: a count left out or null keeps its value",
  );
  const chat = mergeUsage([{ prompt_tokens: 8, completion_tokens: 4, total_tokens: 12, completion_tokens_details: { reasoning_tokens: 2 }, prompt_tokens_details: { cached_tokens: 1 }, cost: 0.1 }]);
  // The short names are the stream's labels' (the server's chat completions labels, as sent).
  const labels = {
    usage_when: ["prompt_tokens", "completion_tokens"],
    usage_rows: [
      { key: "prompt_tokens", label: "prompt", path: "prompt_tokens", help: "prompt_tokens" },
      { key: "completion_tokens", label: "completion", path: "completion_tokens", help: "completion_tokens" },
      { key: "total_tokens", label: "total", path: "total_tokens", help: "total_tokens" },
      { key: "reasoning_tokens", label: "reasoning", path: "completion_tokens_details.reasoning_tokens", help: "completion_tokens_details" },
      { key: "cached_tokens", label: "cached", path: "prompt_tokens_details.cached_tokens", help: "prompt_tokens_details" },
    ],
  };
  assert.deepEqual(
    usageRows(chat, {}, labels).map((r) => [r.key, r.label, r.value]),
    [["prompt_tokens", "prompt", "8"], ["completion_tokens", "completion", "4"], ["total_tokens", "total", "12"], ["reasoning_tokens", "reasoning", "2"], ["cached_tokens", "cached", "1"], ["cost", "cost", "0.1"]],
  );
  // Field names from a capture touch no prototype and find no inherited definition.
  const hostile = mergeUsage([JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 3}')]);
  assert.equal({}.polluted, undefined);
  assert.deepEqual(usageRows(hostile, {}).map((r) => [r.key, r.help]), [["__proto__.polluted", null], ["constructor", null]]);
});

test("metric definitions say chunks with choices only where the stream's labels count them", () => {
  const ttft = (unit) => metricDefinitions(unit).find(([key]) => key === "ttft_ms")[3];
  assert.match(ttft(unitOf({ unit: CHUNKS })), /first chunk with choices/);
  assert.match(ttft(unitOf(null)), /first chunk with choices/, "a stream without labels reads as chat completions");
  const events = unitOf({ unit: { one: "event with output", many: "events with output", trailing: "a trailing usage or end event" } });
  const all = metricDefinitions(events).map(([, , , definition]) => definition).join(" ");
  assert.doesNotMatch(all, /choices/);
  assert.match(ttft(events), /first event with output/);
});

test("a binary frame's raw text is one line, its control bytes written out", () => {
  assert.deepEqual(rawLines("\x00\x00\x00\x9a\x00\x00\x00R:event-type\x07\x00\x0cmessageStart{\"role\":\"assistant\"}\n\x05"), ['\\x00\\x00\\x00\\x9a\\x00\\x00\\x00R:event-type\\x07\\x00\\x0cmessageStart{"role":"assistant"}\\x0a\\x05']);
  assert.deepEqual(rawLines("event: ping\r\ndata: {}\r\n\r\n"), ["event: ping", "data: {}"]);
});
