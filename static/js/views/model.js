// The model name in a stream's head, as of the current moment (the last one a chunk named).

import { el } from "../dom.js";

export class ModelName {
  kinds = ["meta"];
  slot = "head";

  constructor() {
    this.root = el("span", { class: "model", "data-testid": "stream-model" });
    this.named = []; // [seq, model] of meta events that name one
  }

  apply(event) {
    const model = event.fields.model ?? event.fields.modelVersion; // Gemini names it modelVersion
    if (model) this.named.push([event.seq, model]);
  }

  rewind(seq) {
    while (this.named.length && this.named[this.named.length - 1][0] >= seq) this.named.pop();
  }

  flush() {
    const last = this.named[this.named.length - 1];
    const text = last ? String(last[1]) : "";
    if (this.root.textContent !== text) this.root.textContent = text;
  }

  setSummary() {}
}
