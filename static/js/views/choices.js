// A stream's choices side by side (views/choice.js draws one): its text, reasoning lane,
// refusal, tool-call cards and finish reason, and what the block events of every dialect add
// (docs/timeline.md): notes on signed and redacted reasoning, compaction summaries, server
// calls and their results, citations. Text areas apply events in order and rewind by seq.

import { el } from "../dom.js";
import { ChoiceView, LANES } from "./choice.js";
import { tokenPieces } from "./text.js";

export { LANES };

/** Kinds kept in a choice's block state (blocks.js), besides tool_start. */
const BLOCK_KINDS = Object.freeze(["block_start", "block_delta", "block_stop", "signature", "citation", "extra", "payload"]);
const IS_BLOCK_KIND = new Set(BLOCK_KINDS);

export class Choices {
  kinds = ["text", "refusal", "logprobs", "reasoning", "tool_start", "tool_args", "tool_end", "finish", ...BLOCK_KINDS];
  slot = "main";

  constructor({ index, info, timeline, options, progress }) {
    this.index = index;
    this.timeline = timeline;
    this.options = options; // {glyphs}
    this.progress = progress;
    this.labels = info?.labels ?? null;
    this.eventAt = (g) => timeline.events[g]; // token elements carry only their event's g
    this.root = el("div", { class: "choices" });
    this.choices = new Map();
  }

  choiceView(index, seq) {
    let view = this.choices.get(index);
    if (!view) {
      view = new ChoiceView(this.root, this.index, index, this.options, this.eventAt, this.labels);
      this.choices.set(index, view);
      const ordered = [...this.choices.values()].sort((a, b) => a.choice - b.choice);
      for (const choice of ordered) this.root.appendChild(choice.root);
      this.root.dataset.count = String(this.choices.size);
    }
    view.firstSeq = Math.min(view.firstSeq, seq);
    return view;
  }

  apply(event, g) {
    if (IS_BLOCK_KIND.has(event.kind)) {
      this._block(event);
      return;
    }
    const choice = this.choiceView(event.choice, event.seq);
    switch (event.kind) {
      case "text":
      case "refusal": {
        const entries = this._entries(g, event.kind === "text" ? "content" : "refusal");
        const area = event.kind === "text" ? choice.text : choice.refusal;
        area.append(tokenPieces(event.text, entries), { seq: event.seq, g, raw: event.raw, part: event.kind === "text" ? choice.part() : 0 });
        if (event.kind === "refusal") choice.refusalBox.hidden = false;
        else choice.textOfBlock(event, g);
        break;
      }
      case "logprobs":
        // Entries whose chunk had no text of that field (e.g. the first half of a split emoji).
        if (!this._hasTextBefore(g)) {
          const area = event.field === "refusal" ? choice.refusal : choice.text;
          area.append(tokenPieces("", event.entries), { seq: event.seq, g, raw: event.raw, part: area === choice.text ? choice.part() : 0 });
        }
        break;
      case "reasoning":
        choice.reasoning.append([{ text: event.text, entries: [] }], { seq: event.seq, g, raw: event.raw });
        choice.reasoningBox.hidden = false;
        choice.reasoningField(event);
        break;
      case "tool_start":
        if (!choice.tools.cards.has(event.call)) choice.cardStarted(event.seq);
        choice.tools.start(event, g);
        choice.blocks.apply(event);
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

  /** A block event for its choice's block state. Extras only when their view gives the
   * choice's numbered sources (which its citations cite), payloads only when their view gives
   * a call's progress, so neither opens a choice of its own. */
  _block(event) {
    if (event.kind === "extra" && (event.choice === null || event.choice === undefined || !Array.isArray(event.view?.sources))) return;
    if (event.kind === "payload" && !Number.isInteger(event.view?.block)) return;
    const choice = this.choiceView(event.choice ?? 0, event.seq);
    if (event.kind === "block_start" && event.view?.item) choice.cardStarted(event.seq);
    choice.blocks.apply(event);
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
