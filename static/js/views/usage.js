// The usage panel: token counts as of the current moment (the last usage event played).

import { clear, el } from "../dom.js";

const NAMED = ["prompt_tokens", "completion_tokens", "total_tokens", "completion_tokens_details", "prompt_tokens_details"];

export class UsagePanel {
  kinds = ["usage"];
  slot = "panels";

  constructor({ index }) {
    this.root = el("section", { class: "panel usage", "data-testid": "usage", dataset: { stream: index } });
    this.history = []; // [seq, usage, source]
    this.dirty = false;
    this.render();
  }

  apply(event) {
    this.history.push([event.seq, event.usage, event.source]);
    this.dirty = true;
  }

  rewind(seq) {
    const before = this.history.length;
    while (this.history.length && this.history[this.history.length - 1][0] >= seq) this.history.pop();
    if (this.history.length !== before) this.dirty = true;
  }

  flush() {
    if (this.dirty) this.render();
    this.dirty = false;
  }

  setSummary() {}

  render() {
    clear(this.root);
    this.root.appendChild(el("h3", {}, "Usage"));
    const last = this.history[this.history.length - 1];
    if (!last) {
      this.root.appendChild(el("p", { class: "muted", "data-usage": "none" }, "no usage yet"));
      return;
    }
    const [, usage, source] = last;
    const list = el("dl", { class: "kv" });
    const row = (key, label, value) => {
      if (value === undefined || value === null) return;
      list.append(el("dt", {}, label), el("dd", { "data-usage": key }, typeof value === "object" ? JSON.stringify(value) : String(value)));
    };
    row("prompt_tokens", "prompt", usage.prompt_tokens);
    row("completion_tokens", "completion", usage.completion_tokens);
    row("total_tokens", "total", usage.total_tokens);
    row("reasoning_tokens", "reasoning", usage.completion_tokens_details?.reasoning_tokens);
    row("cached_tokens", "cached", usage.prompt_tokens_details?.cached_tokens);
    for (const [key, value] of Object.entries(usage)) {
      if (!NAMED.includes(key)) row(key, key, value);
    }
    this.root.appendChild(list);
    if (source !== "usage") this.root.appendChild(el("p", { class: "muted" }, `from ${source}`));
  }
}
