// The log panel: diagnostics, stream errors, payloads, keep-alives and the server's snapshots
// of the whole response (its status as it goes: queued, in progress, completed, failed,
// incomplete), each at its moment.

import { el, popFrom } from "../dom.js";
import { clockTime } from "../format.js";

function describe(event, name) {
  switch (event.kind) {
    case "snapshot":
      return `response ${event.status ?? "(no status)"} (snapshot${name ? ` in ${name}` : ""})`;
    case "diagnostic":
      return `${event.severity}: ${event.message}${event.line ? ` (line ${event.line})` : ""} [${event.code}]`;
    case "error":
      return `stream error: ${event.message}${event.code !== null && event.code !== undefined ? ` (code ${event.code})` : ""}`;
    case "payload":
      return `payload (${event.category}): ${event.summary}`;
    case "comment":
      return `keep-alive comment: ${event.text}`;
    default: // done: `data: [DONE]`, or the dialect's own end event, by its name
      return name ? `end of stream (${name})` : "[DONE]";
  }
}

export class EventLog {
  kinds = ["diagnostic", "error", "payload", "comment", "done", "snapshot"];
  slot = "panels";

  constructor({ index, timeline }) {
    this.timeline = timeline;
    this.root = el("section", { class: "panel log", "data-testid": "diagnostics", dataset: { stream: index } });
    this.root.appendChild(el("h3", {}, "Diagnostics, errors, payloads"));
    this.list = el("ol", { class: "log-list" });
    this.root.appendChild(this.list);
  }

  apply(event, g) {
    const kind = event.kind;
    const severity = kind === "diagnostic" ? event.severity : kind === "error" ? "error" : "info";
    const item = el("li", { class: `log-item ${kind} ${severity}`, dataset: { seq: event.seq, g, kind } });
    const name = event.raw >= 0 ? this.timeline?.stream(event.stream)?.raw.event[event.raw] : null;
    if (kind === "snapshot") item.dataset.status = String(event.status ?? "");
    item.append(el("span", { class: "log-time" }, event.t === null || event.t === undefined ? "" : clockTime(event.t)), el("span", { class: "log-text" }, describe(event, name)));
    this.list.appendChild(item);
  }

  rewind(seq) {
    popFrom(this.list, seq);
  }

  flush() {}

  setSummary() {}
}
