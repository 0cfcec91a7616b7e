// Tool-call cards: one per call, shown when the call starts, growing fragment by fragment
// (each fragment delimited), and at the end pretty JSON or "invalid JSON" with where it breaks.

import { el, popFrom } from "../dom.js";

export class ToolCards {
  constructor(container) {
    this.container = container;
    this.cards = new Map(); // call -> card
  }

  start(event, g) {
    let card = this.cards.get(event.call);
    if (card) {
      card.identity.push({ seq: event.seq, id: event.id, name: event.name });
      this._identity(card);
      return;
    }
    const root = el("article", {
      class: "tool-card streaming",
      "data-testid": "tool-call",
      dataset: { seq: event.seq, call: event.call, g },
      "aria-label": `Tool call ${event.call + 1}`,
    });
    const head = el("header", { class: "tool-head" });
    const name = el("span", { class: "tool-name", "data-testid": "tool-name" });
    const id = el("code", { class: "tool-id", "data-testid": "tool-id" });
    const index = el("span", { class: "tool-index" }, event.index === null ? "no index sent" : `index ${event.index}`);
    const state = el("span", { class: "tool-state", "data-testid": "tool-state" }, "streaming…");
    head.append(name, id, index, state);
    const args = el("pre", { class: "tool-args", "data-testid": "tool-args" });
    const result = el("div", { class: "tool-result" });
    root.append(head, args, result);
    this.container.appendChild(root);
    card = { root, name, id, state, args, result, identity: [{ seq: event.seq, id: event.id, name: event.name }], end: null };
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

  rewind(seq) {
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
