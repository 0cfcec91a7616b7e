// A stream's in-stream errors, under its choices, each from its moment on.

import { el, popFrom } from "../dom.js";

export class StreamErrors {
  kinds = ["error"];
  slot = "main";

  constructor() {
    this.root = el("div", { class: "stream-errors", "data-testid": "stream-errors", role: "alert" });
  }

  apply(event) {
    const code = event.code !== null && event.code !== undefined ? ` (code ${event.code})` : "";
    this.root.appendChild(el("p", { class: "stream-error", dataset: { seq: event.seq } }, `Stream error: ${event.message}${code}`));
  }

  rewind(seq) {
    popFrom(this.root, seq);
  }

  flush() {}

  setSummary() {}
}
