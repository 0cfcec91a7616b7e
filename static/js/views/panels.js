// Per-stream panels: usage (as of the current moment), metrics (with stated definitions),
// provider extras, and the log of diagnostics, errors, payloads and keep-alives.

import { clear, el, popFrom } from "../dom.js";
import { clockTime, milliseconds, rate } from "../format.js";

export const METRICS = [
  ["ttft_ms", "TTFT", milliseconds, "Time to first token: request start to the first chunk with choices."],
  ["ttfo_ms", "TTFO", milliseconds, "Time to first output: request start to the first content, refusal or tool-call text (reasoning does not count)."],
  ["itl_p50_ms", "ITL p50", milliseconds, "Inter-token latency, median: gaps between consecutive chunks with choices."],
  ["itl_p95_ms", "ITL p95", milliseconds, "Inter-token latency, 95th percentile (linear interpolation)."],
  ["itl_max_ms", "ITL max", milliseconds, "Largest gap between consecutive chunks with choices."],
  ["tpot_ms", "TPOT", milliseconds, "Time per output token after the first: (E2EL - TTFT) / (N - 1)."],
  ["tokens_per_s", "Tokens/s", rate, "Output tokens per second: N / E2EL."],
  ["decode_tokens_per_s", "Decode rate", rate, "(N - 1) / (last chunk - first chunk with choices)."],
  ["e2el_ms", "E2EL", milliseconds, "End-to-end latency: request start to the last chunk with choices (a trailing usage chunk does not count)."],
];

/** Usage as of the cursor: the last usage event applied. */
export class UsagePanel {
  constructor(root) {
    this.root = root;
    this.history = []; // [seq, usage, source]
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
      if (!["prompt_tokens", "completion_tokens", "total_tokens", "completion_tokens_details", "prompt_tokens_details"].includes(key)) row(key, key, value);
    }
    this.root.appendChild(list);
    if (source !== "usage") this.root.appendChild(el("p", { class: "muted" }, `from ${source}`));
  }
}

export function renderMetrics(root, metrics, timed) {
  clear(root);
  root.appendChild(el("h3", {}, "Metrics"));
  const list = el("dl", { class: "kv metrics-list" });
  for (const [key, label, format, definition] of METRICS) {
    const value = metrics ? metrics[key] : null;
    list.append(
      el("dt", { title: definition }, label),
      el("dd", { "data-metric": key, "data-value": value ?? "", title: definition }, format(value ?? null)),
    );
  }
  const tokens = metrics?.output_tokens;
  list.append(
    el("dt", { title: "N, the output token count, and where it came from." }, "Output tokens"),
    el("dd", { "data-metric": "output_tokens", "data-value": tokens ?? "" }, tokens === null || tokens === undefined ? "unknown" : `${tokens} (${metrics.tokens_source})`),
    el("dt", { title: `Gaps at or above ${metrics?.stall_ms ?? 250} ms between chunks.` }, "Stalls"),
    el("dd", { "data-metric": "stalls", "data-value": metrics ? metrics.stalls.length : "" }, metrics ? String(metrics.stalls.length) : "unknown"),
  );
  root.appendChild(list);
  // Where the timing metrics come from, as the backend says it (per-read times, a HAR entry's timings, none).
  if (metrics?.timing_source) root.appendChild(el("p", { class: "muted", "data-metric": "timing_source", "data-value": metrics.timing_source }, `Timing: ${metrics.timing_note}`));
  if (!timed) root.appendChild(el("p", { class: "muted", "data-metric": "untimed" }, metrics?.timing_source ? "This capture has no per-event timing: playback is paced evenly." : "This capture has no per-event timing: timing metrics are unknown, and playback is paced evenly."));
  const help = el("details", { class: "definitions" });
  help.appendChild(el("summary", {}, "Definitions"));
  const defs = el("dl");
  for (const [, label, , definition] of METRICS) defs.append(el("dt", {}, label), el("dd", {}, definition));
  help.appendChild(defs);
  root.appendChild(help);
}

/** Diagnostics, stream errors, payloads and keep-alives, each appearing at its moment. */
export class EventLog {
  constructor(list) {
    this.list = list;
  }

  apply(event, g) {
    let text;
    let kind = event.kind;
    if (kind === "diagnostic") text = `${event.severity}: ${event.message}${event.line ? ` (line ${event.line})` : ""} [${event.code}]`;
    else if (kind === "error") text = `stream error: ${event.message}${event.code !== null && event.code !== undefined ? ` (code ${event.code})` : ""}`;
    else if (kind === "payload") text = `payload (${event.category}): ${event.summary}`;
    else if (kind === "comment") text = `keep-alive comment: ${event.text}`;
    else if (kind === "done") text = "[DONE]";
    else return;
    const severity = kind === "diagnostic" ? event.severity : kind === "error" ? "error" : "info";
    const item = el("li", { class: `log-item ${kind} ${severity}`, dataset: { seq: event.seq, g, kind } });
    item.append(el("span", { class: "log-time" }, event.t === null || event.t === undefined ? "" : clockTime(event.t)), el("span", { class: "log-text" }, text));
    this.list.appendChild(item);
  }

  rewind(seq) {
    popFrom(this.list, seq);
  }
}

/** Provider extras and identity, as of the cursor (last value per key). */
export class ExtrasPanel {
  constructor(root) {
    this.root = root;
    this.history = [];
    this.latest = new Map();
    this.summary = null;
    this.list = null;
    root.addEventListener("toggle", () => {
      if (root.open) {
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
}
