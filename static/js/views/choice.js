// One choice (an output: a numbered choice or candidate, or the one answer, as the stream's
// labels call it): its reasoning lane with notes on signed, redacted and encrypted
// reasoning, its answer text with the citations that cite it, compaction summaries, refusal,
// tool-call cards with their results, and finish reason. Text areas apply events in order and
// rewind by seq; what the block events say is kept in a BlockState (blocks.js) and drawn from
// it when it changes.

import { BlockState } from "../blocks.js";
import { el } from "../dom.js";
import { BlockNotes } from "./blocknotes.js";
import { Citations } from "./citations.js";
import { TextArea } from "./text.js";
import { ToolCards } from "./tools.js";

/** The text areas of a choice: `lane` names them in share links (share.js). */
// How a text is used from the keyboard (selection.js: a roving tabindex over its tokens).
const TEXT_KEYS = "Arrow keys move between tokens; Enter or Space opens a token's details; Escape closes them.";
export const LANES = Object.freeze({ text: "choice-text", reasoning: "reasoning-text", refusal: "refusal-text" });

/** What an output is called, as the stream's labels say (capture message, `labels`). */
export function outputName(labels, choice) {
  if (!labels) return `Choice ${choice}`;
  const name = typeof labels.output === "string" ? labels.output : "Answer";
  return labels.numbered ? `${name} ${choice}` : name;
}

export class ChoiceView {
  /** `eventAt(g)`: the timeline's event g (token elements carry only their event's g). */
  constructor(parent, streamIndex, choice, options, eventAt, labels) {
    this.choice = choice;
    const seqOf = (g) => eventAt(g).seq;
    this.seqOf = seqOf;
    this.eventAt = eventAt;
    this.root = el("div", { class: "choice", "data-testid": "choice", dataset: { choice, stream: streamIndex } });
    const head = el("header", { class: "choice-head" });
    head.appendChild(el("h3", {}, outputName(labels, choice)));
    this.finishBadge = el("span", { class: "finish", "data-testid": "finish-reason", dataset: { choice } }, "streaming");
    head.appendChild(this.finishBadge);
    const compaction = el("div", { class: "compactions", hidden: true });
    this.reasoningBox = el("details", { class: "reasoning-lane", open: true, hidden: true, "data-testid": "reasoning-lane" });
    this.reasoningLabel = el("summary", {}, "Reasoning");
    this.reasoningBox.appendChild(this.reasoningLabel);
    const reasoningText = el("div", { class: LANES.reasoning, "data-testid": "reasoning-text", tabindex: "0", role: "group", "aria-label": `Choice ${choice} reasoning`, "aria-description": TEXT_KEYS, dataset: { choice, stream: streamIndex, lane: "reasoning" } });
    const reasoningNotes = el("ul", { class: "block-notes" });
    this.reasoningBox.append(reasoningText, reasoningNotes);
    const text = el("div", {
      class: LANES.text,
      "data-testid": "choice-text",
      tabindex: "0",
      role: "group", // a group may be named; a bare div may not (axe: aria-prohibited-attr)
      "aria-label": `Choice ${choice} text`,
      "aria-description": TEXT_KEYS,
      dataset: { choice, stream: streamIndex, lane: "text" },
    });
    const textNotes = el("ul", { class: "block-notes", hidden: true });
    const citations = el("ol", { class: "citations", "data-testid": "citations", hidden: true });
    this.refusalBox = el("div", { class: "refusal-box", hidden: true });
    this.refusalBox.appendChild(el("span", { class: "refusal-label" }, "Refusal"));
    const refusal = el("div", { class: LANES.refusal, "data-testid": "choice-refusal", tabindex: "0", role: "group", "aria-label": `Choice ${choice} refusal`, "aria-description": TEXT_KEYS, dataset: { choice, stream: streamIndex, lane: "refusal" } });
    this.refusalBox.appendChild(refusal);
    const tools = el("div", { class: "tool-cards" });
    this.ended = false;
    this.root.append(head, compaction, this.reasoningBox, text, textNotes, citations, this.refusalBox, tools);
    parent.appendChild(this.root);
    this.text = new TextArea(text, { glyphs: options.glyphs, stream: streamIndex, seqOf });
    this.reasoning = new TextArea(reasoningText, { glyphs: options.glyphs, stream: streamIndex, seqOf });
    this.refusal = new TextArea(refusal, { glyphs: options.glyphs, stream: streamIndex, seqOf });
    this.tools = new ToolCards(tools);
    this.blocks = new BlockState();
    this.notes = new BlockNotes({ reasoning: reasoningNotes, text: textNotes, compaction });
    this.blockGs = new Map(); // block -> the g of its text events on screen (citation marks)
    this.citations = new Citations(citations, { blockText: (b) => this._blockText(b), lastToken: (b) => this._lastToken(b) });
    this.drawn = -1; // the block state's version last drawn
    this.citedGrew = false;
    this.fields = []; // [seq, field] each time the reasoning field changes
    this.finishes = [];
    this.firstSeq = Infinity;
    this.cardStarts = []; // the seq of each tool card's start, in order
    this.drawnOrder = ""; // what the flow's order was last computed from
  }

  /** A tool card starts at `seq`: the answer text after it is a new part of the lane. */
  cardStarted(seq) {
    this.cardStarts.push(seq);
  }

  /** The part of the answer lane a text event goes to: the cards started before it. */
  part() {
    return this.cardStarts.length;
  }

  areas() {
    return [this.text, this.reasoning, this.refusal];
  }

  /** An answer text event of a block: remembered for the block's citation marks. */
  textOfBlock(event, g) {
    if (event.block === undefined || event.block === null) return;
    if (!this.blockGs.has(event.block)) this.blockGs.set(event.block, []);
    this.blockGs.get(event.block).push(g);
    if (this.blocks.citations.length) this.citedGrew = true;
  }

  reasoningField(event) {
    const last = this.fields[this.fields.length - 1];
    if (event.field && (!last || last[1] !== event.field)) this.fields.push([event.seq, event.field]);
  }

  _blockText(block) {
    return (this.blockGs.get(block) ?? []).map((g) => this.eventAt(g).text).join("");
  }

  _lastToken(block) {
    const gs = this.blockGs.get(block);
    return gs?.length ? this.text.lastSpanOf(gs[gs.length - 1]) : null;
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
    this.blocks.rewind(seq);
    for (const gs of this.blockGs.values()) {
      while (gs.length && this.seqOf(gs[gs.length - 1]) >= seq) gs.pop();
    }
    while (this.fields.length && this.fields[this.fields.length - 1][0] >= seq) this.fields.pop();
    while (this.finishes.length && this.finishes[this.finishes.length - 1][0] >= seq) this.finishes.pop();
    while (this.cardStarts.length && this.cardStarts[this.cardStarts.length - 1] >= seq) this.cardStarts.pop();
    this._showFinish();
    this.citedGrew = true;
    this.refusalBox.hidden = !this.refusal.container.firstChild;
    this._showReasoning();
  }

  _showReasoning() {
    const hidden = !this.reasoning.container.firstChild && !this.notes.reasoningNotes;
    if (this.reasoningBox.hidden !== hidden) this.reasoningBox.hidden = hidden;
    const fields = [...new Set(this.fields.map(([, field]) => field))];
    const label = fields.length ? `Reasoning · ${fields.join(", ")}` : "Reasoning";
    if (this.reasoningLabel.textContent !== label) this.reasoningLabel.textContent = label;
    if (this.reasoningBox.dataset.fields !== fields.join(" ")) this.reasoningBox.dataset.fields = fields.join(" ");
  }

  flush() {
    for (const area of this.areas()) area.flush();
    if (this.drawn !== this.blocks.version) {
      this.drawn = this.blocks.version;
      this.notes.render(this.blocks);
      this.tools.decorate(this.blocks);
      this.citations.render(this.blocks);
      this.citedGrew = false;
    } else if (this.citedGrew) {
      this.citedGrew = false;
      this.citations.mark(this.blocks);
    }
    this._showReasoning();
    this._order();
  }

  /**
   * Blocks in the order they began: each part of the answer text and each tool card is
   * placed by the seq it started at (CSS order in a flex column; the lane stays one element
   * whose text is the whole answer). Only when that differs from the text above the cards.
   */
  _order() {
    const cards = [...this.tools.container.children].filter((c) => c.dataset.seq !== undefined);
    const lane = this.text.container;
    const key = `${lane.childElementCount}:${lane.lastElementChild?.gs?.[0] ?? ""}:${cards.map((c) => c.dataset.seq).join(",")}`;
    if (key === this.drawnOrder) return;
    this.drawnOrder = key;
    this.text.flush();
    const flow = [];
    let part = null;
    let start = 0;
    for (const block of lane.children) {
      if (!block.gs?.length) continue;
      if (block.stretch !== part) [part, start] = [block.stretch, this.seqOf(block.gs[0])];
      flow.push([start, 0, block]);
    }
    const lastText = flow.length ? flow[flow.length - 1][0] : -Infinity;
    for (const card of cards) flow.push([Number(card.dataset.seq), 1, card]);
    const interleaved = cards.some((card) => Number(card.dataset.seq) < lastText);
    this.root.classList.toggle("interleaved", interleaved);
    if (!interleaved) return;
    flow.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    flow.forEach(([, , element], i) => {
      element.style.order = String(i + 1);
    });
  }

  setGlyphs(on) {
    for (const area of this.areas()) area.setGlyphs(on);
  }
}
