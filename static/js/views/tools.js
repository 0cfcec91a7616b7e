// Tool-call cards: one per call, shown when the call starts, growing fragment by fragment
// (each fragment delimited), and at the end pretty JSON or "invalid JSON" with where it breaks.
// Calls that come as blocks of their own (a server's search or code run, as its view says)
// get cards too, and every card shows its type, whether its block is signed, and the result its
// call got (blocks.js pairs them), drawn from the choice's block state when it changes.

import { itemCalls, pairResults, results } from "../blocks.js";
import { clear, el, popFrom } from "../dom.js";
import { urlElement } from "./citations.js";

/** An item call's statuses after which it streams no more ("code": the code came whole). */
const DONE_STATUSES = new Set(["completed", "failed", "incomplete", "code"]);

export class ToolCards {
  constructor(container) {
    this.container = container;
    this.cards = new Map(); // call -> card
    this.items = new Map(); // block -> card of a call that came as a block
    this.orphans = el("div", { class: "orphan-results", hidden: true });
    container.appendChild(this.orphans);
  }

  /** A card's frame: head (name, id, where, state), argument fragments, results. */
  _card(attrs, where, type) {
    const root = el("article", { class: "tool-card streaming", "data-testid": "tool-call", ...attrs });
    const head = el("header", { class: "tool-head" });
    const name = el("span", { class: "tool-name", "data-testid": "tool-name" });
    const id = el("code", { class: "tool-id", "data-testid": "tool-id" });
    const kind = el("span", { class: "tool-type", "data-testid": "tool-type", hidden: !type }, type ?? "");
    const signed = el("span", { class: "tool-signed", "data-testid": "tool-signed", hidden: true }, "signed");
    const state = el("span", { class: "tool-state", "data-testid": "tool-state" }, "streaming…");
    head.append(name, id, kind, el("span", { class: "tool-index" }, where), signed, state);
    const args = el("pre", { class: "tool-args", "data-testid": "tool-args" });
    const result = el("div", { class: "tool-result" });
    const answer = el("div", { class: "call-result", "data-testid": "tool-result", hidden: true });
    root.append(head, args, result, answer);
    this.container.insertBefore(root, this.orphans);
    return { root, name, id, state, args, result, answer, signed, shown: 0 };
  }

  start(event, g) {
    let card = this.cards.get(event.call);
    if (card) {
      card.identity.push({ seq: event.seq, id: event.id, name: event.name });
      this._identity(card);
      return;
    }
    const attrs = { dataset: { seq: event.seq, call: event.call, g, type: event.type ?? "" }, "aria-label": `Tool call ${event.call + 1}` };
    const where = event.index === null || event.index === undefined ? "no index sent" : `index ${event.index}`;
    card = this._card(attrs, where, event.type);
    if (event.view?.role === "server_call") card.root.dataset.server = "true";
    card.identity = [{ seq: event.seq, id: event.id, name: event.name }];
    card.end = null;
    this.cards.set(event.call, card);
    this._identity(card);
  }

  _identity(card) {
    const last = card.identity[card.identity.length - 1];
    card.name.textContent = last.name ?? "(no name yet)";
    card.id.textContent = last.id ?? "(no id)";
  }

  args(event) {
    const card = this.cards.get(event.call);
    if (!card) return;
    const odd = card.args.childElementCount % 2 === 1;
    card.args.appendChild(el("span", { class: `frag ${odd ? "frag-b" : "frag-a"}`, dataset: { seq: event.seq } }, event.text));
  }

  end(event) {
    const card = this.cards.get(event.call);
    if (!card) return;
    card.end = event;
    card.root.classList.remove("streaming");
    card.root.dataset.status = event.status;
    const result = card.result;
    result.replaceChildren();
    if (event.status === "valid") {
      card.state.textContent = "valid JSON";
      result.appendChild(el("pre", { class: "tool-pretty", "data-testid": "tool-pretty" }, pretty(event.arguments)));
    } else if (event.status === "empty") {
      card.state.textContent = "no arguments";
    } else {
      card.state.textContent = event.incomplete ? "invalid JSON (incomplete)" : "invalid JSON";
      const where = event.error_pos ?? 0;
      const shown = el("pre", { class: "tool-invalid", "data-testid": "tool-invalid" });
      shown.append(
        document.createTextNode(event.arguments.slice(0, where)),
        el("mark", { class: "error-at", title: "the JSON breaks here" }, event.arguments.slice(where, where + 1) || "␄"),
        document.createTextNode(event.arguments.slice(where + 1)),
      );
      result.append(el("p", { class: "tool-error", "data-testid": "tool-error" }, `${event.error}`), shown);
    }
  }

  /** Bring the block-derived parts up to date with the choice's block state (blocks.js). */
  decorate(state) {
    this._items(itemCalls(state));
    const cards = [];
    for (const [call, card] of this.cards) {
      const block = state.calls.get(call) ?? null;
      const last = card.identity[card.identity.length - 1];
      card.signed.hidden = !(block !== null && state.blocks.get(block)?.signatures.length);
      cards.push({ key: `call:${call}`, id: last.id, block, card });
    }
    for (const [block, card] of this.items) cards.push({ key: `item:${block}`, id: undefined, block, card });
    const { byKey, orphans } = pairResults(results(state), cards);
    for (const { key, card } of cards) this._answer(card.answer, byKey.get(key) ?? []);
    this._answer(this.orphans, orphans, true);
  }

  _items(items) {
    const wanted = new Set(items.map((item) => item.block));
    for (const [block, card] of this.items) {
      if (!wanted.has(block)) {
        card.root.remove();
        this.items.delete(block);
      }
    }
    for (const item of items) {
      let card = this.items.get(item.block);
      if (!card) {
        card = this._card({ dataset: { seq: item.seq, block: item.block, origin: "item", type: item.type }, "aria-label": `${item.type} (block ${item.block})` }, `block ${item.block}`, item.type);
        if (item.server) card.root.dataset.server = "true";
        const later = [...this.container.children].find((c) => c !== card.root && Number(c.dataset.seq) > item.seq);
        if (later) this.container.insertBefore(card.root, later);
        this.items.set(item.block, card);
      }
      card.name.textContent = item.name;
      card.id.textContent = item.id ?? "(no id)";
      card.state.textContent = item.status ?? "in progress";
      const done = DONE_STATUSES.has(item.status);
      card.root.classList.toggle("streaming", !done);
      if (card.shown !== item.fragments.length) {
        clear(card.args);
        item.fragments.forEach((fragment, i) => card.args.appendChild(el("span", { class: `frag ${i % 2 ? "frag-b" : "frag-a"}`, dataset: { seq: fragment.seq } }, fragment.text)));
        card.shown = item.fragments.length;
      }
      card.root.classList.toggle("item-args", item.fragments.length > 0);
    }
  }

  /** Results in a card (or, unpaired, on their own). */
  _answer(box, found, orphan = false) {
    clear(box);
    for (const result of found) {
      const section = orphan ? el("article", { class: "tool-card orphan", "data-testid": "tool-result-orphan", dataset: { block: result.block } }) : box;
      const target = result.target.id !== undefined ? ` for ${result.target.id}` : "";
      section.appendChild(el("h4", { class: "result-head" }, `${result.type} (block ${result.block})${orphan ? `: no call${target} in this stream` : ""}`));
      for (const line of result.lines) {
        const row = el("div", { class: "result-line", "data-testid": "tool-result-line" });
        row.append(el("span", { class: "result-label" }, line.label), line.url ? urlElement(line.url, { class: "result-url" }) : el("span", { class: "result-text" }, line.text));
        if (line.url && line.text !== line.url) row.appendChild(el("span", { class: "result-text" }, line.text));
        section.appendChild(row);
      }
      if (orphan) box.appendChild(section);
    }
    box.hidden = !box.firstChild;
  }

  rewind(seq) {
    for (const [block, card] of this.items) {
      if (Number(card.root.dataset.seq) >= seq) {
        card.root.remove();
        this.items.delete(block);
      }
    }
    for (const [call, card] of this.cards) {
      if (Number(card.root.dataset.seq) >= seq) {
        card.root.remove();
        this.cards.delete(call);
        continue;
      }
      popFrom(card.args, seq);
      card.identity = card.identity.filter((entry) => entry.seq < seq);
      this._identity(card);
      if (card.end && card.end.seq >= seq) {
        card.end = null;
        card.root.classList.add("streaming");
        delete card.root.dataset.status;
        card.state.textContent = "streaming…";
        card.result.replaceChildren();
      }
    }
  }
}

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text; // valid for Python (NaN, huge numbers) but not for JSON.parse: shown as sent
  }
}
