// A choice's content blocks as of a moment (DOM-free): what the block events say
// (docs/timeline.md: block_start, block_delta, block_stop, signature, citation) and what their
// views say of them (docs/timeline.md, "Block views": each block's role, as the server's
// dialect reads it), which block each tool call lives in, and what the page shows of them
// besides the text lanes: signatures and redacted or encrypted reasoning as notes, compaction
// summaries, calls that come as blocks of their own, and results paired with their call.
// Block events are few, so a rewind replays the ones before the cut.

/** The roles of a block whose tool_start makes its card. */
export const CALL_ROLES = new Set(["tool_call", "server_call"]);
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
    this.sources = []; // the choice's numbered sources, as last sent (citations cite them by index)
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
      block = { block: number, type: null, role: null, view: {}, seq, stopped: false, signatures: [], deltas: new Map(), status: null };
      this.blocks.set(number, block);
    }
    return block;
  }

  _take(event) {
    const view = isObject(event.view) ? event.view : {};
    switch (event.kind) {
      case "block_start": {
        const block = this._block(event.block, event.seq);
        block.type = event.type;
        block.role = view.role ?? null;
        block.view = { ...view };
        if (typeof view.status === "string") block.status = view.status;
        break;
      }
      case "block_delta": {
        const block = this._block(event.block, event.seq);
        const as = view.as ?? null;
        const key = as === "note" ? `note:${view.note}` : as;
        if (key === null) break;
        if (!block.deltas.has(key)) block.deltas.set(key, { view, parts: [] });
        block.deltas.get(key).parts.push({ seq: event.seq, text: String(event.text ?? "") });
        break;
      }
      case "block_stop": {
        const block = this._block(event.block, event.seq);
        block.stopped = true;
        block.view = { ...block.view, ...view };
        if (typeof view.status === "string") block.status = view.status;
        break;
      }
      case "signature":
        this._block(event.block, event.seq).signatures.push(String(event.signature ?? ""));
        break;
      case "citation":
        this.citations.push(event);
        break;
      case "extra":
        if (Array.isArray(view.sources)) this.sources = view.sources;
        break;
      case "payload":
        // A call's progress, which names its block: "searching".
        if (Number.isInteger(view.block) && typeof view.status === "string") this._block(view.block, event.seq).status = view.status;
        break;
      case "tool_start":
        if (!this.calls.has(event.call)) this.calls.set(event.call, this._callBlock(event));
        break;
      default:
    }
  }

  /** The block a call lives in: the one its index names, else the one open when it started. */
  _callBlock(event) {
    const isCall = (block) => CALL_ROLES.has(block?.role) && !block.view.item;
    const named = Number.isInteger(event.index) ? this.blocks.get(event.index) : null;
    if (isCall(named)) return named.block;
    let open = null;
    for (const block of this.blocks.values()) if (!block.stopped) open = block;
    return isCall(open) ? open.block : null;
  }

  callBlocks() {
    return new Set([...this.calls.values()].filter((block) => block !== null));
  }

  /** The deltas of a block that its view says are `as` (args, text), each {seq, text}. */
  deltaParts(block, as) {
    return block.deltas.get(as)?.parts ?? [];
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
    const lane = block.role === "reasoning" ? "reasoning" : "text";
    const where = `${block.type ?? "block"} (block ${block.block})`;
    const add = (note, text) => notes.push({ block: block.block, type: block.type, note, lane, text });
    for (const found of Array.isArray(block.view.notes) ? block.view.notes : []) add(String(found.note), String(found.text));
    for (const [key, { view, parts }] of block.deltas) {
      if (!key.startsWith("note:")) continue;
      const size = bytes(parts.map((p) => p.text).join(""));
      add(String(view.note), `${view.words} (${size.toLocaleString("en-US")} bytes)`);
    }
    if (block.signatures.length) {
      const last = block.signatures[block.signatures.length - 1];
      add("signed", `${where}: signed (${signatureShown(last)}, ${last.length.toLocaleString("en-US")} characters)`);
    }
  }
  return notes;
}

/** Compaction summaries, each a block of its own: [{block, seq, text}]. */
export function compactions(state) {
  const found = [];
  for (const block of state.blocks.values()) {
    if (block.role !== "compaction") continue;
    const opened = typeof block.view.text === "string" ? block.view.text : "";
    found.push({ block: block.block, seq: block.seq, text: opened + state.deltaParts(block, "text").map((d) => d.text).join("") });
  }
  return found;
}

/** Calls that come as blocks of their own, for cards: [{block, seq, type, name, id, status,
 * fragments: [{seq, text}], server}]. */
export function itemCalls(state) {
  const calls = state.callBlocks();
  const items = [];
  for (const block of state.blocks.values()) {
    const view = block.view;
    if (!view.item || calls.has(block.block)) continue;
    let fragments = state.deltaParts(block, "args");
    if (!fragments.length && typeof view.code === "string") fragments = [{ seq: block.seq, text: view.code }];
    const name = typeof view.name === "string" ? view.name : block.type;
    const id = typeof view.id === "string" ? view.id : null;
    items.push({ block: block.block, seq: block.seq, type: block.type, name, id, status: block.status, fragments, server: block.role === "server_call" });
  }
  return items;
}

/** Results and the call each answers: [{block, type, target: {id} | {block}, lines}]. A
 * result's view names its call by id, or says it answers its own block ("self") or the last
 * call block before it ("previous"). */
export function results(state) {
  const found = [];
  let previous = null; // the last call block that came as a block of its own, not yet answered
  for (const block of state.blocks.values()) {
    const result = block.view.result;
    if (block.view.item) previous = block.block;
    if (!isObject(result)) continue;
    const lines = Array.isArray(result.lines) ? result.lines : [];
    if (result.for === "self") {
      if (lines.length) found.push({ block: block.block, type: block.type, target: { block: block.block }, lines });
    } else if (result.for === "previous") {
      if (previous === null) continue;
      found.push({ block: block.block, type: block.type, target: { block: previous }, lines });
      previous = null;
    } else if (typeof result.for?.id === "string") {
      found.push({ block: block.block, type: block.type, target: { id: result.for.id }, lines });
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
