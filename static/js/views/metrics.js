// The metrics panel, with stated definitions. Each value appears once its moment has been
// played, so the panel never says more than the rest of the page: TTFT once the first chunk
// with choices is on screen, TTFO once the first output is, everything else (E2EL, ITL, rates,
// the token count, stalls) once the stream's end is. Before that a value reads "not yet".

import { clear, el, nameWithBreaks } from "../dom.js";
import { milliseconds, rate } from "../format.js";

/** What the metrics count, as the stream's labels say (`labels.unit`: chunks with choices in
 * the dialects that have choices, else the events that carry output; docs/dialects.md). */
export const CHUNKS = Object.freeze({ one: "chunk with choices", many: "chunks with choices", trailing: "a trailing usage chunk" });
export function unitOf(labels) {
  const unit = labels?.unit;
  return unit && ["one", "many", "trailing"].every((k) => typeof unit[k] === "string") ? unit : CHUNKS;
}

/** [key, label, format, definition] for a stream counted in `unit` (unitOf). */
export function metricDefinitions(unit = CHUNKS) {
  const u = unit;
  return [
    ["ttft_ms", "TTFT", milliseconds, `Time to first token: request start to the first ${u.one}.`],
    ["ttfo_ms", "TTFO", milliseconds, "Time to first output: request start to the first content, refusal or tool-call text (reasoning does not count)."],
    ["itl_p50_ms", "ITL p50", milliseconds, `Inter-token latency, median: gaps between consecutive ${u.many}.`],
    ["itl_p95_ms", "ITL p95", milliseconds, "Inter-token latency, 95th percentile (linear interpolation)."],
    ["itl_max_ms", "ITL max", milliseconds, `Largest gap between consecutive ${u.many}.`],
    ["tpot_ms", "TPOT", milliseconds, "Time per output token after the first: (E2EL - TTFT) / (N - 1)."],
    ["tokens_per_s", "Tokens/s", rate, "Output tokens per second: N / E2EL."],
    ["decode_tokens_per_s", "Decode rate", rate, `(N - 1) / (last ${u.one} - first ${u.one}).`],
    ["e2el_ms", "E2EL", milliseconds, `End-to-end latency: request start to the last ${u.one} (${u.trailing} does not count).`],
  ];
}

export const METRICS = metricDefinitions();

/** What the server reports of its own work (metrics.server), in ms; each one's definition in
 * the dialect's own terms comes with the stream's labels (`labels.server_metrics`). */
export const SERVER_METRICS = [
  ["total_duration_ms", "Server total", milliseconds, "the server's whole time on the request."],
  ["load_duration_ms", "Model load", milliseconds, "loading the model."],
  ["prompt_eval_duration_ms", "Prompt eval", milliseconds, "evaluating the prompt (prefill)."],
  ["eval_duration_ms", "Generation", milliseconds, "generating."],
  ["prompt_eval_tokens_per_s", "Prefill rate", rate, "prompt tokens / prompt evaluation seconds."],
  ["eval_tokens_per_s", "Server decode rate", rate, "output tokens / generation seconds: the server's decode rate, beside the wire's decode rate."],
];

/** SERVER_METRICS with the definitions the stream's labels give. */
export function serverMetrics(labels) {
  const given = labels?.server_metrics ?? {};
  return SERVER_METRICS.map(([key, label, format, definition]) => [key, label, format, typeof given[key] === "string" && Object.hasOwn(given, key) ? given[key] : definition]);
}

/** Metrics known at a moment of the stream (ms from its request start); the rest at its end. */
const AT_MOMENT = new Set(["ttft_ms", "ttfo_ms"]);
export const PENDING = "not yet";

/**
 * Whether a metric can be shown: `metrics` is the stream's summary (null before it came),
 * `progress` says what has been played ({reached(ms), ended()}).
 */
export function metricShown(key, metrics, timed, progress) {
  if (!timed && key !== "output_tokens" && key !== "stalls") return true; // "unknown" at once
  if (!metrics) return false;
  const at = AT_MOMENT.has(key) ? metrics[key] : null;
  return at !== null && at !== undefined ? progress.reached(at) : progress.ended();
}

export class MetricsPanel {
  kinds = []; // reads the stream's progress at flush()
  slot = "panels";

  constructor({ index, info, progress }) {
    this.root = el("section", { class: "panel metrics", "data-testid": "metrics", dataset: { stream: index } });
    this.unit = unitOf(info.labels);
    this.definitions = metricDefinitions(this.unit);
    this.server = serverMetrics(info.labels);
    this.timed = info.timed;
    this.progress = progress;
    this.metrics = null;
    this.shownKey = null;
    this.flush();
  }

  apply() {}

  rewind() {}

  setSummary(summary) {
    this.metrics = summary.metrics;
    this.timed = summary.metrics.timed;
    this.shownKey = null;
  }

  flush() {
    const keys = [...this.definitions.map(([key]) => key), "output_tokens", "stalls"];
    const shown = keys.map((key) => metricShown(key, this.metrics, this.timed, this.progress));
    const key = shown.map(Number).join("");
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.render(new Map(keys.map((name, i) => [name, shown[i]])));
  }

  render(shown) {
    const metrics = this.metrics;
    const helpOpen = this.root.querySelector("details.definitions")?.open ?? false;
    clear(this.root);
    this.root.appendChild(el("h3", {}, "Metrics"));
    const list = el("dl", { class: "kv metrics-list" });
    const value = (key, raw, text, title) => {
      const ready = shown.get(key);
      return el(
        "dd",
        { "data-metric": key, "data-value": ready ? (raw ?? "") : "", "data-state": ready ? "shown" : "pending", title },
        ready ? text : PENDING,
      );
    };
    for (const [key, label, format, definition] of this.definitions) {
      const raw = metrics ? metrics[key] : null;
      list.append(el("dt", { title: definition }, label), value(key, raw, format(raw ?? null), definition));
    }
    const tokens = metrics?.output_tokens;
    const stalls = metrics ? metrics.stalls.length : null;
    list.append(
      el("dt", { title: "N, the output token count, and where it came from." }, "Output tokens"),
      value("output_tokens", tokens, tokens === null || tokens === undefined ? "unknown" : `${tokens} (${metrics.tokens_source})`),
      el("dt", { title: `Gaps at or above ${metrics?.stall_ms ?? 250} ms between ${this.unit.many}.` }, "Stalls"),
      value("stalls", stalls, stalls === null ? "unknown" : String(stalls)),
    );
    this.root.appendChild(list);
    if (metrics?.server) this.root.appendChild(this._server(metrics.server, shown.get("stalls")));
    // Where the timing metrics come from, as the backend says it (per-read times, a HAR entry's timings, none).
    if (metrics?.timing_source) {
      this.root.appendChild(el("p", { class: "muted", "data-metric": "timing_source", "data-value": metrics.timing_source }, `Timing: ${metrics.timing_note}`));
    }
    if (!this.timed) {
      const untimed = metrics?.timing_source === "har"
        ? "This capture has no per-event timing: it is replayed from its first byte to its last, the events spread evenly between."
        : metrics?.timing_source
          ? "This capture has no per-event timing: playback is paced evenly."
          : "This capture has no per-event timing: timing metrics are unknown, and playback is paced evenly.";
      this.root.appendChild(el("p", { class: "muted", "data-metric": "untimed" }, untimed));
    } else if ([...shown.values()].some((ready) => !ready)) {
      this.root.appendChild(el("p", { class: "muted", "data-metric": "pending" }, `Each value appears once its moment has been played: TTFT at the first ${this.unit.one}, TTFO at the first output, the rest at the end of the stream.`));
    }
    const help = el("details", { class: "definitions", open: helpOpen });
    help.appendChild(el("summary", {}, "Definitions"));
    const defs = el("dl");
    for (const [, label, , definition] of this.definitions) defs.append(el("dt", {}, label), el("dd", {}, definition));
    if (metrics?.server) for (const [, label, , definition] of this.server) defs.append(el("dt", {}, label), el("dd", {}, definition));
    help.appendChild(defs);
    this.root.appendChild(help);
  }

  /** The server's own durations and rates, next to the wire-timed metrics, once the stream's
   * end (where the server says them) has been played; they need no timing in the capture. */
  _server(server, ready) {
    const box = el("section", { class: "server-metrics", "data-testid": "server-metrics" });
    box.appendChild(el("h4", {}, "Reported by the server (not measured on the wire)"));
    const list = el("dl", { class: "kv metrics-list" });
    for (const [key, label, format, definition] of this.server) {
      const raw = server[key] ?? null;
      list.append(
        nameWithBreaks("dt", { title: definition }, label),
        el("dd", { "data-metric": `server.${key}`, "data-value": ready ? (raw ?? "") : "", "data-state": ready ? "shown" : "pending", title: definition }, ready ? format(raw) : PENDING),
      );
    }
    box.appendChild(list);
    return box;
  }
}
