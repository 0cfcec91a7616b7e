// Provider extras and identity as of the current moment (the last value per key), listed when
// the panel is opened.

import { clear, el } from "../dom.js";

export class ExtrasPanel {
  kinds = ["meta", "extra"];
  slot = "panels";

  constructor() {
    this.root = el("details", { class: "panel extras", "data-testid": "extras" });
    this.history = [];
    this.latest = new Map();
    this.summary = null;
    this.list = null;
    this.dirty = false;
    this.root.addEventListener("toggle", () => {
      if (this.root.open) {
        this.dirty = true;
        this.flush();
      }
    });
  }

  _add(event) {
    const scope = event.kind === "meta" ? "response" : event.scope === "chunk" ? "chunk" : `choice ${event.choice}${event.scope === "delta" ? " delta" : ""}`;
    for (const [key, value] of Object.entries(event.fields)) this.latest.set(`${scope} · ${key}`, value);
  }

  apply(event) {
    this.history.push(event);
    this._add(event);
    this.dirty = true;
  }

  rewind(seq) {
    const before = this.history.length;
    while (this.history.length && this.history[this.history.length - 1].seq >= seq) this.history.pop();
    if (before !== this.history.length) {
      this.latest = new Map();
      for (const event of this.history) this._add(event);
      this.dirty = true;
    }
  }

  flush() {
    if (!this.dirty) return;
    this.dirty = false;
    if (!this.summary) {
      clear(this.root);
      this.summary = el("summary", {});
      this.list = el("dl", { class: "kv extras" });
      this.root.append(this.summary, this.list);
    }
    this.summary.textContent = `Response and provider fields (${this.latest.size})`;
    if (!this.root.open) return; // built when opened (the toggle listener)
    clear(this.list);
    for (const [key, value] of this.latest) {
      let text = typeof value === "string" ? value : JSON.stringify(value);
      if (text.length > 600) text = `${text.slice(0, 600)}…`;
      this.list.append(el("dt", {}, key), el("dd", {}, text));
    }
  }

  setSummary() {}
}
