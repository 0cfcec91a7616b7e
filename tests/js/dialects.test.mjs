// Issue 12: the page shows every dialect with the same lanes and cards. The pure parts: block
// state and result pairing, notes on signed and redacted reasoning, citations and their URLs,
// usage under each dialect's names, metric wording per dialect, binary raw frames.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BlockState, blockNotes, compactions, itemCalls, pairResults, results, signatureShown } from "../../static/js/blocks.js";
import { citationView, safeHref } from "../../static/js/citing.js";
import { describeResult } from "../../static/js/results.js";
import { mergeUsage, usageRows } from "../../static/js/usagenames.js";
import { metricDefinitions } from "../../static/js/views/metrics.js";
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
    ev("block_start", { block: 0, type: "server_tool_use", value: { id: "srvtoolu_1", name: "web_search" } }),
    ev("tool_start", { call: 0, index: 0, id: "srvtoolu_1", name: "web_search", type: "server_tool_use" }),
    ev("block_stop", { block: 0, value: null }),
    ev("block_start", { block: 1, type: "text", value: { type: "text", text: "" } }),
    ev("block_stop", { block: 1, value: null }),
    ev("block_start", { block: 2, type: "web_search_tool_result", value: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", title: "Weather", url: "https://example.com/w" }] } }),
    ev("block_start", { block: 3, type: "mcp_tool_result", value: { tool_use_id: "nobody", content: [{ type: "text", text: "hi" }] } }),
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
    ev("block_start", { block: 0, type: "functionCall", value: null }),
    ev("tool_start", { call: 0, index: null, id: null, name: "get_country", type: "function" }),
    ev("signature", { block: 0, signature: "EpwICpkIAXLI2nxlU6gs" }),
    ev("block_stop", { block: 0, value: null }),
    ev("block_start", { block: 1, type: "executableCode", value: { executableCode: { language: "PYTHON", code: "print(1)" } } }),
    ev("block_stop", { block: 1, value: null }),
    ev("block_start", { block: 2, type: "codeExecutionResult", value: { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1\n" } } }),
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
    ev("block_start", { block: 0, type: "thinking", value: { type: "thinking", thinking: "", signature: "" } }),
    ev("signature", { block: 0, signature }),
    ev("block_stop", { block: 0, value: null }),
    ev("block_start", { block: 1, type: "redacted_thinking", value: { type: "redacted_thinking", data: "EqkECkYIBxgCKkA8" } }),
    ev("block_start", { block: 2, type: "reasoning", value: { id: "rs_1", type: "reasoning", encrypted_content: "gAAAA" } }),
    ev("block_stop", { block: 2, value: { id: "rs_1", type: "reasoning", encrypted_content: "gAAAAABo-longer" } }),
    ev("block_start", { block: 3, type: "reasoningContent", value: null }),
    ev("block_delta", { block: 3, field: "redactedContent", text: "abc" }),
    ev("block_delta", { block: 3, field: "redactedContent", text: "de" }),
    ev("block_start", { block: 4, type: "text", value: null }),
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
    ev("block_start", { block: 0, type: "compaction", value: { type: "compaction", content: null } }),
    ev("block_delta", { block: 0, field: "content", text: "The user asked " }),
    ev("block_delta", { block: 0, field: "content", text: "for a summary." }),
  ]);
  assert.deepEqual(compactions(blocks).map((c) => [c.block, c.text]), [[0, "The user asked for a summary."]]);
  blocks.rewind(blocks.log[2].seq);
  assert.deepEqual(compactions(blocks).map((c) => c.text), ["The user asked "]);
});

test("Responses server items are cards of their own, with their progress and their done item's result", () => {
  const blocks = state([
    ev("block_start", { block: 1, type: "web_search_call", value: { id: "ws_1", type: "web_search_call", status: "in_progress" } }),
    { kind: "payload", seq: seq++, raw: 0, category: "server_tool", value: { type: "response.web_search_call.searching", output_index: 1 } },
  ]);
  assert.deepEqual(itemCalls(blocks).map((c) => [c.name, c.id, c.status]), [["web_search_call", "ws_1", "searching"]]);
  assert.deepEqual(results(blocks), [], "no result before the item is done");
  blocks.apply(ev("block_stop", { block: 1, value: { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "weather", sources: [{ type: "url", url: "javascript:alert(1)" }] } } }));
  assert.equal(itemCalls(blocks)[0].status, "completed");
  assert.deepEqual(results(blocks)[0].lines, [
    { label: "query", text: "weather", url: null },
    { label: "source", text: "javascript:alert(1)", url: "javascript:alert(1)" },
  ]);
  // A function call item is not an item card: its tool_start makes its card.
  blocks.apply(ev("block_start", { block: 2, type: "function_call", value: { call_id: "call_1" } }));
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

test("citations of every dialect in one shape", () => {
  const anthropic = citationView({ type: "web_search_result_location", url: "https://w.example/", title: "W", cited_text: "Sunny" });
  assert.deepEqual(anthropic, { kind: "web_search_result_location", sources: [{ title: "W", url: "https://w.example/" }], quote: "Sunny", span: null });
  const responses = citationView({ type: "url_citation", url: "https://r.example/", title: "R", start_index: 6, end_index: 11 }, { blockText: "Hello world!" });
  assert.equal(responses.span, "world");
  const grounding = { groundingChunks: [{ web: { uri: "https://g.example/", title: "g.example" } }] };
  const gemini = citationView({ segment: { startIndex: 0, endIndex: 5, text: "Hello" }, groundingChunkIndices: [0, 7] }, { grounding });
  assert.deepEqual(gemini.sources, [{ title: "g.example", url: "https://g.example/" }, { title: "(grounding chunk not sent)", url: null }]);
  assert.equal(gemini.span, "Hello");
  const cohere = citationView({ start: 0, end: 5, text: "Hello", sources: [{ type: "document", id: "d1", document: { title: "Doc", snippet: "a snippet", url: "https://c.example/" } }] });
  assert.deepEqual([cohere.sources, cohere.quote, cohere.span], [[{ title: "Doc", url: "https://c.example/" }], "a snippet", "Hello"]);
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
  assert.deepEqual(
    usageRows(chat, {}).map((r) => [r.key, r.label, r.value]),
    [["prompt_tokens", "prompt", "8"], ["completion_tokens", "completion", "4"], ["total_tokens", "total", "12"], ["reasoning_tokens", "reasoning", "2"], ["cached_tokens", "cached", "1"], ["cost", "cost", "0.1"]],
  );
  // Field names from a capture touch no prototype and find no inherited definition.
  const hostile = mergeUsage([JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 3}')]);
  assert.equal({}.polluted, undefined);
  assert.deepEqual(usageRows(hostile, {}).map((r) => [r.key, r.help]), [["__proto__.polluted", null], ["constructor", null]]);
});

test("metric definitions say chunks with choices only where the dialect has choices", () => {
  const ttft = (dialect) => metricDefinitions(dialect).find(([key]) => key === "ttft_ms")[3];
  assert.match(ttft("chat-completions"), /first chunk with choices/);
  assert.match(ttft("completions"), /first chunk with choices/);
  for (const dialect of ["anthropic-messages", "openai-responses", "gemini", "ollama", "cohere", "bedrock-converse"]) {
    const all = metricDefinitions(dialect).map(([, , , definition]) => definition).join(" ");
    assert.doesNotMatch(all, /choices/, dialect);
    assert.match(ttft(dialect), /first event with output/, dialect);
  }
});

test("a binary frame's raw text is one line, its control bytes written out", () => {
  assert.deepEqual(rawLines("\x00\x00\x00\x9a\x00\x00\x00R:event-type\x07\x00\x0cmessageStart{\"role\":\"assistant\"}\n\x05"), ['\\x00\\x00\\x00\\x9a\\x00\\x00\\x00R:event-type\\x07\\x00\\x0cmessageStart{"role":"assistant"}\\x0a\\x05']);
  assert.deepEqual(rawLines("event: ping\r\ndata: {}\r\n\r\n"), ["event: ping", "data: {}"]);
});

test("result lines keep a URL as sent: the card decides whether it is a link", () => {
  const lines = describeResult("web_search_tool_result", { tool_use_id: "x", content: [{ type: "web_search_result", title: "<img src=x onerror=alert(1)>", url: "javascript:alert(1)" }] });
  assert.deepEqual(lines, [{ label: "result", text: "<img src=x onerror=alert(1)>", url: "javascript:alert(1)" }]);
  const error = describeResult("web_search_tool_result", { tool_use_id: "x", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } });
  assert.deepEqual(error, [{ label: "error", text: "max_uses_exceeded", url: null }]);
});
