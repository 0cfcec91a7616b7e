// The model name in a stream's head, as of the current moment (the last one a chunk named).

import { el } from "../dom.js";

export class ModelName {
  kinds = ["meta"];
  slot = "head";

  /** `info.labels.model`: the meta fields that name the model, the first present wins. */
  constructor({ info } = {}) {
    const fields = info?.labels?.model;
    this.fields = Array.isArray(fields) && fields.length ? fields : ["model"];
    this.root = el("span", { class: "model", "data-testid": "stream-model" });
    this.named = []; // [seq, model] of meta events that name one
  }

  apply(event) {
    const model = this.fields.map((field) => event.fields[field]).find((value) => value !== null && value !== undefined);
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
