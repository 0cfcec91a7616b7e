// One section per stream: its choices side by side (text, reasoning lane, refusal, tool
// calls, finish reason), and its panels. Views apply timeline events in order and rewind by
// seq, so the screen is always a function of the events before the cursor.

import { el, popFrom } from "../dom.js";
import { EventLog, ExtrasPanel, UsagePanel, renderMetrics } from "./panels.js";
import { TextArea, tokenPieces } from "./text.js";
import { ToolCards } from "./tools.js";

class ChoiceView {
  constructor(parent, streamIndex, choice, options, seqOf) {
    this.choice = choice;
    this.root = el("div", { class: "choice", "data-testid": "choice", dataset: { choice, stream: streamIndex } });
    const head = el("header", { class: "choice-head" });
    head.appendChild(el("h3", {}, `Choice ${choice}`));
    this.finishBadge = el("span", { class: "finish", "data-testid": "finish-reason", dataset: { choice } }, "streaming");
    head.appendChild(this.finishBadge);
    this.reasoningBox = el("details", { class: "reasoning-lane", open: true, hidden: true, "data-testid": "reasoning-lane" });
    this.reasoningBox.appendChild(el("summary", {}, "Reasoning"));
    const reasoningText = el("div", { class: "reasoning-text", "data-testid": "reasoning-text", dataset: { choice, stream: streamIndex } });
    this.reasoningBox.appendChild(reasoningText);
    const text = el("div", {
      class: "choice-text",
      "data-testid": "choice-text",
      tabindex: "0",
      "aria-label": `Choice ${choice} text`,
      dataset: { choice, stream: streamIndex },
    });
    this.refusalBox = el("div", { class: "refusal-box", hidden: true });
    this.refusalBox.appendChild(el("span", { class: "refusal-label" }, "Refusal"));
    const refusal = el("div", { class: "refusal-text", "data-testid": "choice-refusal", dataset: { choice, stream: streamIndex } });
    this.refusalBox.appendChild(refusal);
    const tools = el("div", { class: "tool-cards" });
    this.ended = false;
    this.root.append(head, this.reasoningBox, text, this.refusalBox, tools);
    parent.appendChild(this.root);
    this.text = new TextArea(text, { glyphs: options.glyphs, stream: streamIndex, seqOf });
    this.reasoning = new TextArea(reasoningText, { glyphs: options.glyphs, stream: streamIndex, seqOf });
    this.refusal = new TextArea(refusal, { glyphs: options.glyphs, stream: streamIndex, seqOf });
    this.tools = new ToolCards(tools);
    this.finishes = [];
    this.firstSeq = Infinity;
  }

  finish(event) {
    this.finishes.push([event.seq, event.reason]);
    this._showFinish();
  }

  _showFinish() {
    const last = this.finishes[this.finishes.length - 1];
    const reason = last ? last[1] : this.ended ? "none" : null;
    this.finishBadge.textContent = reason === null ? "streaming" : `finish: ${reason}`;
    this.finishBadge.dataset.reason = reason ?? "";
  }

  setEnded(ended) {
    if (this.ended === ended) return;
    this.ended = ended;
    this._showFinish();
  }

  rewind(seq) {
    this.text.rewind(seq);
    this.reasoning.rewind(seq);
    this.refusal.rewind(seq);
    this.tools.rewind(seq);
    while (this.finishes.length && this.finishes[this.finishes.length - 1][0] >= seq) this.finishes.pop();
    this._showFinish();
    this.reasoningBox.hidden = !this.reasoning.container.firstChild;
    this.refusalBox.hidden = !this.refusal.container.firstChild;
  }

  setGlyphs(on) {
    for (const area of [this.text, this.reasoning, this.refusal]) area.setGlyphs(on);
  }
}

export class StreamView {
  constructor(parent, info, timeline, options) {
    this.index = info.index;
    this.timeline = timeline;
    this.options = options;
    this.seqOf = (g) => timeline.events[g].seq; // token elements carry only their event's g
    this.root = el("section", { class: "stream", "data-testid": "stream", dataset: { stream: info.index }, "aria-label": `Stream ${info.index + 1}` });
    const head = el("header", { class: "stream-head" });
    head.appendChild(el("h2", {}, `Stream ${info.index + 1}`));
    this.model = el("span", { class: "model", "data-testid": "stream-model" });
    head.append(this.model, el("span", { class: "origin" }, info.origin), el("span", { class: "timing" }, info.timed ? "real timing" : "no timing in capture: paced evenly"));
    this.choicesBox = el("div", { class: "choices" });
    this.errorsBox = el("div", { class: "stream-errors", "data-testid": "stream-errors", role: "alert" });
    const panels = el("div", { class: "panels" });
    const usage = el("section", { class: "panel usage", "data-testid": "usage", dataset: { stream: info.index } });
    this.metricsBox = el("section", { class: "panel metrics", "data-testid": "metrics", dataset: { stream: info.index } });
    const log = el("section", { class: "panel log", "data-testid": "diagnostics", dataset: { stream: info.index } });
    log.appendChild(el("h3", {}, "Diagnostics, errors, payloads"));
    const logList = el("ol", { class: "log-list" });
    log.appendChild(logList);
    const extras = el("details", { class: "panel extras", "data-testid": "extras" });
    panels.append(usage, this.metricsBox, log, extras);
    this.root.append(head, this.choicesBox, this.errorsBox, panels);
    parent.appendChild(this.root);
    this.choices = new Map();
    this.usage = new UsagePanel(usage);
    this.log = new EventLog(logList);
    this.extras = new ExtrasPanel(extras);
    this.metas = [];
    renderMetrics(this.metricsBox, null, info.timed);
  }

  choiceView(index, seq) {
    let view = this.choices.get(index);
    if (!view) {
      view = new ChoiceView(this.choicesBox, this.index, index, this.options, this.seqOf);
      this.choices.set(index, view);
      const ordered = [...this.choices.values()].sort((a, b) => a.choice - b.choice);
      for (const choice of ordered) this.choicesBox.appendChild(choice.root);
      this.choicesBox.dataset.count = String(this.choices.size);
    }
    view.firstSeq = Math.min(view.firstSeq, seq);
    return view;
  }

  apply(event, g) {
    switch (event.kind) {
      case "text":
      case "refusal": {
        const choice = this.choiceView(event.choice, event.seq);
        const entries = this._entries(g, event.kind === "text" ? "content" : "refusal");
        const area = event.kind === "text" ? choice.text : choice.refusal;
        area.append(tokenPieces(event.text, entries), { seq: event.seq, g, raw: event.raw });
        if (event.kind === "refusal") choice.refusalBox.hidden = false;
        break;
      }
      case "logprobs": {
        // Entries whose chunk had no text of that field (e.g. the first half of a split emoji).
        if (!this._hasTextBefore(g)) {
          const choice = this.choiceView(event.choice, event.seq);
          const area = event.field === "refusal" ? choice.refusal : choice.text;
          area.append(tokenPieces("", event.entries), { seq: event.seq, g, raw: event.raw });
        }
        break;
      }
      case "reasoning": {
        const choice = this.choiceView(event.choice, event.seq);
        choice.reasoning.append([{ text: event.text, entries: [] }], { seq: event.seq, g, raw: event.raw });
        choice.reasoningBox.hidden = false;
        break;
      }
      case "tool_start":
        this.choiceView(event.choice, event.seq).tools.start(event, g);
        break;
      case "tool_args":
        this.choiceView(event.choice, event.seq).tools.args(event);
        break;
      case "tool_end":
        this.choiceView(event.choice, event.seq).tools.end(event);
        break;
      case "finish":
        this.choiceView(event.choice, event.seq).finish(event);
        break;
      case "usage":
        this.usage.apply(event);
        break;
      case "meta":
        this.metas.push(event);
        this.extras.apply(event);
        this._showModel();
        break;
      case "extra":
        this.extras.apply(event);
        break;
      case "error":
        this.errorsBox.appendChild(
          el("p", { class: "stream-error", dataset: { seq: event.seq } }, `Stream error: ${event.message}${event.code !== null && event.code !== undefined ? ` (code ${event.code})` : ""}`),
        );
        this.log.apply(event, g);
        break;
      default:
        this.log.apply(event, g);
    }
  }

  /** The logprob entries that came with the text event at global index g, if any. */
  _entries(g, field) {
    const text = this.timeline.events[g];
    for (let i = g + 1; i < this.timeline.events.length; i++) {
      const next = this.timeline.events[i];
      if (next.stream !== text.stream || next.raw !== text.raw) break;
      if (next.kind === "logprobs" && next.choice === text.choice && next.field === field) return next.entries;
    }
    return null;
  }

  _hasTextBefore(g) {
    const lp = this.timeline.events[g];
    for (let i = g - 1; i >= 0; i--) {
      const previous = this.timeline.events[i];
      if (previous.stream !== lp.stream || previous.raw !== lp.raw) return false;
      const field = previous.kind === "text" ? "content" : previous.kind === "refusal" ? "refusal" : null;
      if (field === lp.field && previous.choice === lp.choice) return true;
    }
    return false;
  }

  _showModel() {
    const models = this.metas.map((m) => m.fields.model).filter(Boolean);
    this.model.textContent = models.length ? models[models.length - 1] : "";
  }

  rewind(seq) {
    for (const [index, choice] of this.choices) {
      if (choice.firstSeq >= seq) {
        choice.root.remove();
        this.choices.delete(index);
      } else {
        choice.rewind(seq);
      }
    }
    this.usage.rewind(seq);
    this.log.rewind(seq);
    popFrom(this.errorsBox, seq);
    this.extras.rewind(seq);
    while (this.metas.length && this.metas[this.metas.length - 1].seq >= seq) this.metas.pop();
    this._showModel();
  }

  flush() {
    for (const choice of this.choices.values()) {
      choice.text.flush();
      choice.reasoning.flush();
      choice.refusal.flush();
    }
    this.usage.flush();
    this.extras.flush();
  }

  /** Whether the cursor is past this stream's last event (a missing finish is then "none"). */
  setEnded(ended) {
    for (const choice of this.choices.values()) choice.setEnded(ended);
  }

  setSummary(summary) {
    renderMetrics(this.metricsBox, summary.metrics, summary.metrics.timed);
  }

  setGlyphs(on) {
    for (const choice of this.choices.values()) choice.setGlyphs(on);
  }
}
