// The usage panel: token counts as of the current moment (each field as last sent), under the
// dialect's own names with the definitions the server gives (usage_help, usagenames.js); once
// the stream's end is played, the same counts in the terms every dialect shares (inspect
// --json `normalized.usage`).

import { clear, el, nameWithBreaks } from "../dom.js";
import { mergeUsage, SHARED, usageRows } from "../usagenames.js";

export class UsagePanel {
  kinds = ["usage"];
  slot = "panels";

  constructor({ index, info, progress }) {
    this.root = el("section", { class: "panel usage", "data-testid": "usage", dataset: { stream: index } });
    this.help = info?.usage_help ?? {};
    this.labels = info?.labels ?? null;
    this.progress = progress;
    this.history = []; // [seq, usage, source]
    this.shared = null; // normalized.usage from the summary
    this.dirty = false;
    this.shownEnd = false;
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
    const ended = Boolean(this.shared) && this.progress.ended();
    if (this.dirty || ended !== this.shownEnd) this.render();
    this.dirty = false;
  }

  setSummary(summary) {
    this.shared = summary.normalized?.usage ?? null;
    this.dirty = true;
  }

  render() {
    const helpOpen = this.root.querySelector("details.definitions")?.open ?? false;
    clear(this.root);
    this.root.appendChild(el("h3", {}, "Usage"));
    this.shownEnd = Boolean(this.shared) && this.progress.ended();
    const last = this.history[this.history.length - 1];
    if (!last) {
      this.root.appendChild(el("p", { class: "muted", "data-usage": "none" }, "no usage yet"));
      return;
    }
    const list = el("dl", { class: "kv" });
    for (const row of usageRows(mergeUsage(this.history.map(([, usage]) => usage)), this.help, this.labels)) {
      list.append(nameWithBreaks("dt", { title: row.help }, row.label), el("dd", { "data-usage": row.key, title: row.help }, row.value));
    }
    this.root.appendChild(list);
    const sources = [...new Set(this.history.map(([, , source]) => source))];
    if (sources.some((source) => source !== "usage")) this.root.appendChild(el("p", { class: "muted" }, `from ${sources.join(", ")}`));
    if (this.shownEnd) this.root.appendChild(this._shared());
    const definitions = Object.entries(this.help).filter(([, text]) => typeof text === "string");
    if (definitions.length) {
      const help = el("details", { class: "definitions", open: helpOpen, "data-testid": "usage-help" });
      help.appendChild(el("summary", {}, "Definitions"));
      const defs = el("dl");
      for (const [name, text] of definitions) defs.append(nameWithBreaks("dt", {}, name), el("dd", {}, text));
      help.appendChild(defs);
      this.root.appendChild(help);
    }
  }

  _shared() {
    const line = el("p", { class: "usage-shared", "data-testid": "usage-shared" });
    line.appendChild(el("span", { class: "muted" }, "In every dialect's terms: "));
    SHARED.forEach(([key, words], i) => {
      const value = this.shared[key];
      if (value === undefined) return;
      if (i) line.appendChild(document.createTextNode(" · "));
      line.append(`${words} `, el("span", { "data-usage": `normalized.${key}` }, value === null ? "unknown" : String(value)));
    });
    return line;
  }
}
