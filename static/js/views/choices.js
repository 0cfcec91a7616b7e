// A stream's choices side by side: per choice its text, reasoning lane, refusal, tool-call
// cards and finish reason. Text areas apply events in order and rewind by seq.

import { el } from "../dom.js";
import { TextArea, tokenPieces } from "./text.js";
import { ToolCards } from "./tools.js";

/** The text areas of a choice: `lane` names them in share links (share.js). */
export const LANES = Object.freeze({ text: "choice-text", reasoning: "reasoning-text", refusal: "refusal-text" });

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
    const reasoningText = el("div", { class: LANES.reasoning, "data-testid": "reasoning-text", dataset: { choice, stream: streamIndex, lane: "reasoning" } });
    this.reasoningBox.appendChild(reasoningText);
    const text = el("div", {
      class: LANES.text,
      "data-testid": "choice-text",
      tabindex: "0",
      "aria-label": `Choice ${choice} text`,
      dataset: { choice, stream: streamIndex, lane: "text" },
    });
    this.refusalBox = el("div", { class: "refusal-box", hidden: true });
    this.refusalBox.appendChild(el("span", { class: "refusal-label" }, "Refusal"));
    const refusal = el("div", { class: LANES.refusal, "data-testid": "choice-refusal", dataset: { choice, stream: streamIndex, lane: "refusal" } });
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

  areas() {
    return [this.text, this.reasoning, this.refusal];
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
    for (const area of this.areas()) area.rewind(seq);
    this.tools.rewind(seq);
    while (this.finishes.length && this.finishes[this.finishes.length - 1][0] >= seq) this.finishes.pop();
    this._showFinish();
    this.reasoningBox.hidden = !this.reasoning.container.firstChild;
    this.refusalBox.hidden = !this.refusal.container.firstChild;
  }

  flush() {
    for (const area of this.areas()) area.flush();
  }

  setGlyphs(on) {
    for (const area of this.areas()) area.setGlyphs(on);
  }
}

export class Choices {
  kinds = ["text", "refusal", "logprobs", "reasoning", "tool_start", "tool_args", "tool_end", "finish"];
  slot = "main";

  constructor({ index, timeline, options, progress }) {
    this.index = index;
    this.timeline = timeline;
    this.options = options; // {glyphs}
    this.progress = progress;
    this.seqOf = (g) => timeline.events[g].seq; // token elements carry only their event's g
    this.root = el("div", { class: "choices" });
    this.choices = new Map();
  }

  choiceView(index, seq) {
    let view = this.choices.get(index);
    if (!view) {
      view = new ChoiceView(this.root, this.index, index, this.options, this.seqOf);
      this.choices.set(index, view);
      const ordered = [...this.choices.values()].sort((a, b) => a.choice - b.choice);
      for (const choice of ordered) this.root.appendChild(choice.root);
      this.root.dataset.count = String(this.choices.size);
    }
    view.firstSeq = Math.min(view.firstSeq, seq);
    return view;
  }

  apply(event, g) {
    const choice = this.choiceView(event.choice, event.seq);
    switch (event.kind) {
      case "text":
      case "refusal": {
        const entries = this._entries(g, event.kind === "text" ? "content" : "refusal");
        const area = event.kind === "text" ? choice.text : choice.refusal;
        area.append(tokenPieces(event.text, entries), { seq: event.seq, g, raw: event.raw });
        if (event.kind === "refusal") choice.refusalBox.hidden = false;
        break;
      }
      case "logprobs":
        // Entries whose chunk had no text of that field (e.g. the first half of a split emoji).
        if (!this._hasTextBefore(g)) {
          const area = event.field === "refusal" ? choice.refusal : choice.text;
          area.append(tokenPieces("", event.entries), { seq: event.seq, g, raw: event.raw });
        }
        break;
      case "reasoning":
        choice.reasoning.append([{ text: event.text, entries: [] }], { seq: event.seq, g, raw: event.raw });
        choice.reasoningBox.hidden = false;
        break;
      case "tool_start":
        choice.tools.start(event, g);
        break;
      case "tool_args":
        choice.tools.args(event);
        break;
      case "tool_end":
        choice.tools.end(event);
        break;
      default: // finish
        choice.finish(event);
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

  rewind(seq) {
    for (const [index, choice] of this.choices) {
      if (choice.firstSeq >= seq) {
        choice.root.remove();
        this.choices.delete(index);
      } else {
        choice.rewind(seq);
      }
    }
  }

  /** Put text on the page; a missing finish reason reads "none" once the stream's end is played. */
  flush() {
    const ended = this.progress.ended();
    for (const choice of this.choices.values()) {
      choice.flush();
      choice.setEnded(ended);
    }
  }

  setSummary() {}

  setGlyphs(on) {
    for (const choice of this.choices.values()) choice.setGlyphs(on);
  }
}
