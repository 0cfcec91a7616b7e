// What a choice's blocks hold besides its lanes' text (blocks.js): notes on signed, redacted
// and encrypted reasoning under the reasoning text (on other blocks, under the answer), and
// compaction summaries as blocks of their own. Redrawn from the block state when it
// changes; text only.

import { clear, el } from "../dom.js";
import { blockNotes, compactions } from "../blocks.js";

export class BlockNotes {
  /** `places`: {reasoning, text, compaction} elements of the choice. */
  constructor(places) {
    this.places = places;
    this.reasoningNotes = 0;
  }

  render(state) {
    const { reasoning, text, compaction } = this.places;
    clear(reasoning);
    clear(text);
    clear(compaction);
    const notes = blockNotes(state);
    for (const note of notes) {
      const item = el("li", { class: `block-note ${note.note}`, "data-testid": "block-note", dataset: { block: note.block, note: note.note, type: note.type ?? "" } }, note.text);
      (note.lane === "reasoning" ? reasoning : text).appendChild(item);
    }
    this.reasoningNotes = notes.filter((n) => n.lane === "reasoning").length;
    text.hidden = !text.firstChild;
    for (const found of compactions(state)) {
      const box = el("section", { class: "compaction", "data-testid": "compaction", dataset: { block: found.block } });
      box.append(el("h4", {}, `Compaction summary (block ${found.block})`), el("div", { class: "compaction-text", "data-testid": "compaction-text" }, found.text));
      compaction.appendChild(box);
    }
    compaction.hidden = !compaction.firstChild;
  }
}
