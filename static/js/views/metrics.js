// The metrics panel, with stated definitions. Each value appears once its moment has been
// played, so the panel never says more than the rest of the page: TTFT once the first chunk
// with choices is on screen, TTFO once the first output is, everything else (E2EL, ITL, rates,
// the token count, stalls) once the stream's end is. Before that a value reads "not yet".

import { clear, el } from "../dom.js";
import { milliseconds, rate } from "../format.js";

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
    const keys = [...METRICS.map(([key]) => key), "output_tokens", "stalls"];
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
    for (const [key, label, format, definition] of METRICS) {
      const raw = metrics ? metrics[key] : null;
      list.append(el("dt", { title: definition }, label), value(key, raw, format(raw ?? null), definition));
    }
    const tokens = metrics?.output_tokens;
    const stalls = metrics ? metrics.stalls.length : null;
    list.append(
      el("dt", { title: "N, the output token count, and where it came from." }, "Output tokens"),
      value("output_tokens", tokens, tokens === null || tokens === undefined ? "unknown" : `${tokens} (${metrics.tokens_source})`),
      el("dt", { title: `Gaps at or above ${metrics?.stall_ms ?? 250} ms between chunks.` }, "Stalls"),
      value("stalls", stalls, stalls === null ? "unknown" : String(stalls)),
    );
    this.root.appendChild(list);
    // Where the timing metrics come from, as the backend says it (per-read times, a HAR entry's timings, none).
    if (metrics?.timing_source) {
      this.root.appendChild(el("p", { class: "muted", "data-metric": "timing_source", "data-value": metrics.timing_source }, `Timing: ${metrics.timing_note}`));
    }
    if (!this.timed) {
      const untimed = metrics?.timing_source
        ? "This capture has no per-event timing: playback is paced evenly."
        : "This capture has no per-event timing: timing metrics are unknown, and playback is paced evenly.";
      this.root.appendChild(el("p", { class: "muted", "data-metric": "untimed" }, untimed));
    } else if ([...shown.values()].some((ready) => !ready)) {
      this.root.appendChild(el("p", { class: "muted", "data-metric": "pending" }, "Each value appears once its moment has been played: TTFT at the first chunk with choices, TTFO at the first output, the rest at the end of the stream."));
    }
    const help = el("details", { class: "definitions", open: helpOpen });
    help.appendChild(el("summary", {}, "Definitions"));
    const defs = el("dl");
    for (const [, label, , definition] of METRICS) defs.append(el("dt", {}, label), el("dd", {}, definition));
    help.appendChild(defs);
    this.root.appendChild(help);
  }
}
