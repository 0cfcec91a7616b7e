// Text areas made of blocks of a couple of KB (content-visibility: auto keeps long answers
// cheap), filled with one element per chunk or per token. Rewinding pops elements by seq.

import { el } from "../dom.js";
import { bucket, hasWhitespace, hexBytes, utf8, withGlyphs } from "../format.js";

export const BLOCK_CHARS = 2048;

/**
 * How a chunk's text splits into token elements. With logprob entries whose bytes decode to
 * exactly the text, one piece per token; otherwise one piece for the chunk carrying all its
 * entries, with the bytes of partial-UTF-8 tokens (an emoji split over two tokens).
 */
export function tokenPieces(text, entries) {
  if (!entries || entries.length === 0) return [{ text, entries: [] }];
  const decoded = entries.map((entry) => (Array.isArray(entry.bytes) ? utf8(entry.bytes) : entry.token));
  if (decoded.every((d) => d !== null) && decoded.join("") === text) {
    return entries.map((entry, i) => ({ text: decoded[i], entries: [i], logprob: entry.logprob }));
  }
  const partial = entries.filter((e, i) => decoded[i] === null).map((e) => hexBytes(e.bytes));
  return [
    {
      text,
      entries: entries.map((_, i) => i),
      logprob: Math.min(...entries.map((e) => e.logprob)),
      bytes: partial.join(" | "),
    },
  ];
}

export class TextArea {
  constructor(container, { glyphs = false, stream = 0 } = {}) {
    this.container = container;
    this.glyphs = glyphs;
    this.stream = stream;
    this.block = null;
    this.blockChars = 0;
  }

  _currentBlock(extra) {
    if (!this.block || this.blockChars + extra > BLOCK_CHARS) {
      this.block = el("div", { class: "block" });
      this.container.appendChild(this.block);
      this.blockChars = 0;
    }
    return this.block;
  }

  /** Append one chunk's pieces; `meta` = {seq, g, raw}. */
  append(pieces, meta) {
    for (const piece of pieces) {
      const span = el("span", {
        class: "tok",
        "data-testid": "token",
        dataset: { seq: meta.seq, g: meta.g, raw: meta.raw, stream: this.stream },
      });
      if (piece.entries.length) {
        span.dataset.e = piece.entries.join(",");
        span.classList.add("lp", `p${bucket(piece.logprob)}`);
        span.tabIndex = -1;
      }
      if (piece.bytes) {
        span.classList.add("partial");
        span.dataset.bytes = piece.bytes;
      }
      if (hasWhitespace(piece.text)) {
        span.classList.add("ws");
        span.dataset.text = piece.text;
        span.textContent = this.glyphs ? withGlyphs(piece.text) : piece.text;
      } else {
        span.textContent = piece.text;
      }
      this._currentBlock(piece.text.length).appendChild(span);
      this.blockChars += piece.text.length;
    }
  }

  rewind(seq) {
    // Whole blocks first (a rewind to the start of a long answer is cheap), then tokens.
    let block = this.container.lastElementChild;
    while (block && Number(block.firstElementChild?.dataset.seq ?? Infinity) >= seq) {
      const previous = block.previousElementSibling;
      block.remove();
      block = previous;
    }
    if (block) {
      let child = block.lastElementChild;
      while (child && Number(child.dataset.seq) >= seq) {
        const previous = child.previousElementSibling;
        child.remove();
        child = previous;
      }
    }
    this.block = this.container.lastElementChild;
    this.blockChars = this.block ? this.block.textContent.length : 0;
  }

  setGlyphs(on) {
    this.glyphs = on;
    for (const span of this.container.querySelectorAll(".tok.ws")) {
      span.textContent = on ? withGlyphs(span.dataset.text) : span.dataset.text;
    }
  }
}
