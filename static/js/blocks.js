// A choice's content blocks as of a moment (DOM-free): what the block events of every dialect
// say (docs/timeline.md: block_start, block_delta, block_stop, signature, citation), which
// block each tool call lives in, and what the page shows of them besides the text lanes:
// signatures and redacted or encrypted reasoning as notes, compaction summaries, calls that
// come as items or parts of their own (docs/dialects.md), and results paired with their call.
// Block events are few, so a rewind replays the ones before the cut.

import { describeResult } from "./results.js";

/** Block types whose content is reasoning (Anthropic, Gemini, Responses, Bedrock, Cohere). */
export const REASONING_TYPES = new Set(["thinking", "redacted_thinking", "thought", "reasoning", "reasoningContent"]);
/** Block types a tool_start belongs to. */
export const TOOL_TYPES = new Set(["tool_use", "server_tool_use", "mcp_tool_use", "functionCall", "toolUse", "function_call", "mcp_call"]);
/** Calls that come as a block of their own, without tool_start (Responses items, Gemini code). */
export const ITEM_CALLS = new Set([
  "web_search_call",
  "file_search_call",
  "code_interpreter_call",
  "image_generation_call",
  "computer_call",
  "local_shell_call",
  "custom_tool_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "executableCode",
]);
/** Calls the server runs itself (the others are run by the client). */
export const SERVER_CALLS = new Set(["server_tool_use", "mcp_tool_use", "mcp_call", "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_list_tools", "executableCode"]);
/** Responses items whose done value carries what the server's call found. */
const RESULT_ON_STOP = new Set([...ITEM_CALLS, "mcp_call"]);
export const PREFIX = 8; // characters of a signature shown

const bytes = (text) => new TextEncoder().encode(text).length;
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

export class BlockState {
  constructor() {
    this.log = []; // the events applied, in order
    this.version = 0;
    this._reset();
  }

  _reset() {
    this.blocks = new Map(); // block number -> block, in the order they came
    this.calls = new Map(); // call -> block number (or null)
    this.citations = [];
    this.grounding = null; // Gemini groundingMetadata, as last sent
  }

  apply(event) {
    this.log.push(event);
    this._take(event);
    this.version++;
  }

  /** Forget events from `seq` on; true when something was forgotten. */
  rewind(seq) {
    let keep = this.log.length;
    while (keep && this.log[keep - 1].seq >= seq) keep--;
    if (keep === this.log.length) return false;
    this.log.length = keep;
    this._reset();
    for (const event of this.log) this._take(event);
    this.version++;
    return true;
  }

  _block(number, seq) {
    let block = this.blocks.get(number);
    if (!block) {
      block = { block: number, type: null, value: null, seq, stopped: false, stopValue: null, signatures: [], deltas: new Map(), status: null };
      this.blocks.set(number, block);
    }
    return block;
  }

  _take(event) {
    switch (event.kind) {
      case "block_start": {
        const block = this._block(event.block, event.seq);
        block.type = event.type;
        block.value = event.value;
        if (typeof event.value?.status === "string") block.status = event.value.status;
        break;
      }
      case "block_delta": {
        const block = this._block(event.block, event.seq);
        if (!block.deltas.has(event.field)) block.deltas.set(event.field, []);
        block.deltas.get(event.field).push({ seq: event.seq, text: String(event.text ?? "") });
        break;
      }
      case "block_stop": {
        const block = this._block(event.block, event.seq);
        block.stopped = true;
        block.stopValue = event.value ?? null;
        if (typeof event.value?.status === "string") block.status = event.value.status;
        break;
      }
      case "signature":
        this._block(event.block, event.seq).signatures.push(String(event.signature ?? ""));
        break;
      case "citation":
        this.citations.push(event);
        break;
      case "extra":
        if (isObject(event.fields?.groundingMetadata)) this.grounding = event.fields.groundingMetadata;
        break;
      case "payload": {
        // Responses progress of a server call: "response.web_search_call.searching".
        const value = event.value;
        if (event.category === "server_tool" && Number.isInteger(value?.output_index) && typeof value.type === "string") {
          this._block(value.output_index, event.seq).status = value.type.split(".").pop();
        }
        break;
      }
      case "tool_start":
        if (!this.calls.has(event.call)) this.calls.set(event.call, this._callBlock(event));
        break;
      default:
    }
  }

  /** The block a call lives in: the one its index names, else the one open when it started. */
  _callBlock(event) {
    const named = Number.isInteger(event.index) ? this.blocks.get(event.index) : null;
    if (named && TOOL_TYPES.has(named.type)) return named.block;
    let open = null;
    for (const block of this.blocks.values()) if (!block.stopped) open = block;
    return open && TOOL_TYPES.has(open.type) ? open.block : null;
  }

  callBlocks() {
    return new Set([...this.calls.values()].filter((block) => block !== null));
  }

  /** The text a block's deltas of `field` add up to. */
  deltaText(block, field) {
    return (block.deltas.get(field) ?? []).map((d) => d.text).join("");
  }
}

/** A signature as shown: never more than a short prefix. */
export function signatureShown(signature) {
  const text = String(signature);
  return text.length > PREFIX ? `${text.slice(0, PREFIX)}…` : text;
}

/** Notes on what blocks hold that the lanes do not show: signatures (not on calls: the card
 * says it), redacted and encrypted reasoning. Each: {block, type, note, lane, text}. */
export function blockNotes(state) {
  const calls = state.callBlocks();
  const notes = [];
  for (const block of state.blocks.values()) {
    if (calls.has(block.block)) continue;
    const lane = REASONING_TYPES.has(block.type) ? "reasoning" : "text";
    const where = `${block.type ?? "block"} (block ${block.block})`;
    const add = (note, text) => notes.push({ block: block.block, type: block.type, note, lane, text });
    const data = block.type === "redacted_thinking" ? block.value?.data : null;
    if (typeof data === "string") add("redacted", `redacted thinking (${bytes(data).toLocaleString("en-US")} bytes)`);
    const redacted = state.deltaText(block, "redactedContent");
    if (block.deltas.has("redactedContent")) add("redacted", `redacted reasoning (${bytes(redacted).toLocaleString("en-US")} bytes)`);
    const encrypted = block.stopValue?.encrypted_content ?? block.value?.encrypted_content;
    if (typeof encrypted === "string" && encrypted) add("encrypted", `encrypted reasoning (${bytes(encrypted).toLocaleString("en-US")} bytes)`);
    if (block.signatures.length) {
      const last = block.signatures[block.signatures.length - 1];
      add("signed", `${where}: signed (${signatureShown(last)}, ${last.length.toLocaleString("en-US")} characters)`);
    }
  }
  return notes;
}

/** Anthropic compaction summaries, each a block of its own: [{block, seq, text}]. */
export function compactions(state) {
  const found = [];
  for (const block of state.blocks.values()) {
    if (block.type !== "compaction") continue;
    const opened = typeof block.value?.content === "string" ? block.value.content : "";
    found.push({ block: block.block, seq: block.seq, text: opened + state.deltaText(block, "content") });
  }
  return found;
}

/** Calls that come as blocks of their own, for cards: [{block, seq, type, name, id, status,
 * fragments: [{seq, text}], server}]. */
export function itemCalls(state) {
  const calls = state.callBlocks();
  const items = [];
  for (const block of state.blocks.values()) {
    if (!ITEM_CALLS.has(block.type) || calls.has(block.block)) continue;
    const value = isObject(block.stopValue) ? block.stopValue : isObject(block.value) ? block.value : {};
    let fragments = [...(block.deltas.get("code") ?? []), ...(block.deltas.get("input") ?? [])];
    let name = typeof value.name === "string" ? value.name : block.type;
    let status = block.status;
    if (block.type === "executableCode") {
      const code = value.executableCode ?? {};
      fragments = [{ seq: block.seq, text: String(code.code ?? "") }];
      name = `executableCode${code.language ? ` (${code.language})` : ""}`;
      status ??= "code";
    } else if (!fragments.length && typeof value.code === "string") {
      fragments = [{ seq: block.seq, text: value.code }];
    }
    const id = [value.call_id, value.id].find((v) => typeof v === "string") ?? null;
    items.push({ block: block.block, seq: block.seq, type: block.type, name, id, status, fragments, server: SERVER_CALLS.has(block.type) });
  }
  return items;
}

/** Results and the call each answers: [{block, type, target: {id} | {block}, lines}].
 * An Anthropic *_tool_result block names its call by tool_use_id; a Gemini code execution
 * result answers the executable code before it; a Responses server call carries its own. */
export function results(state) {
  const found = [];
  let code = null; // the last Gemini executable code block
  for (const block of state.blocks.values()) {
    const value = block.value;
    if (block.type === "executableCode") code = block.block;
    if (typeof block.type === "string" && block.type.endsWith("_tool_result") && typeof value?.tool_use_id === "string") {
      found.push({ block: block.block, type: block.type, target: { id: value.tool_use_id }, lines: describeResult(block.type, value) });
    } else if (block.type === "codeExecutionResult" && code !== null) {
      found.push({ block: block.block, type: block.type, target: { block: code }, lines: describeResult(block.type, value) });
      code = null;
    } else if (RESULT_ON_STOP.has(block.type) && isObject(block.stopValue)) {
      const lines = describeResult(block.type, block.stopValue);
      if (lines.length) found.push({ block: block.block, type: block.type, target: { block: block.block }, lines });
    }
  }
  return found;
}

/** Results by the card they belong to. `cards`: [{key, id, block}]; a result goes to the card
 * whose id its target names, or whose block it names; the others are orphans. */
export function pairResults(found, cards) {
  const byKey = new Map();
  const orphans = [];
  for (const result of found) {
    const { id, block } = result.target;
    const card = id !== undefined ? cards.find((c) => c.id === id) : cards.find((c) => c.block === block);
    if (!card) {
      orphans.push(result);
      continue;
    }
    if (!byKey.has(card.key)) byKey.set(card.key, []);
    byKey.get(card.key).push(result);
  }
  return { byKey, orphans };
}
