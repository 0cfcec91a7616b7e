// Text areas made of blocks of about a KB (content-visibility: auto keeps long answers cheap;
// smaller blocks than the couple of KB first chosen make each playback frame's layout cheaper),
// filled with one element per chunk or per token. Rewinding pops elements by seq.

import { el } from "../dom.js";
import { bucket, hasWhitespace, hexBytes, utf8, withGlyphs } from "../format.js";

export const BLOCK_CHARS = 1024;

let template = null;
function tokenTemplate() {
  if (template === null) {
    template = document.createElement("span");
    template.setAttribute("data-testid", "token");
  }
  return template;
}

/**
 * How a chunk's text splits into token elements. With logprob entries whose bytes decode to
 * exactly the text, one piece per token; otherwise one piece for the chunk carrying all its
 * entries, with the bytes of partial-UTF-8 tokens (an emoji split over two tokens).
 */
const NO_ENTRIES = Object.freeze([]);
const FIRST_ENTRY = Object.freeze([0]);

export function tokenPieces(text, entries) {
  if (!entries || entries.length === 0) return [{ text, entries: NO_ENTRIES }];
  if (entries.length === 1) {
    const only = entries[0];
    // The token string equal to the text settles it without decoding the bytes (most tokens).
    const decoded = only.token === text || !Array.isArray(only.bytes) ? only.token : utf8(only.bytes);
    if (decoded === text) return [{ text, entries: FIRST_ENTRY, logprob: only.logprob }];
  }
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
  constructor(container, { glyphs = false, stream = 0, seqOf = null } = {}) {
    this.container = container;
    this.glyphs = glyphs;
    this.stream = stream;
    this.seqOf = seqOf; // g -> seq (the timeline's); without it, g stands in for seq
    this.block = null;
    this.detached = false;
    this.blockChars = 0;
  }

  // A new block is filled while detached and attached when full or at flush(): tokens
  // inserted into a detached element skip the per-node work of insertion into the document.
  // Each block keeps, per token element, its event's g (`block.gs`) and, for tokens with
  // whitespace, their text (`block.texts`, for the glyph toggle): JS arrays instead of an
  // attribute per token, which cost a third of a 100k-token jump.
  // `part` is the stretch of the lane the token belongs to: a new part starts a new block
  // (the choice draws a tool card between two parts: views/choice.js).
  _currentBlock(extra, part) {
    if (!this.block || this.blockChars + extra > BLOCK_CHARS || this.block.stretch !== part) {
      this.flush();
      this.block = el("div", { class: "block" });
      this.block.gs = [];
      this.block.texts = [];
      this.block.stretch = part; // not `part`: an element's part is its CSS shadow parts
      this.detached = true;
      this.blockChars = 0;
    }
    return this.block;
  }

  /** Put the block being filled on the page. */
  flush() {
    if (this.detached) {
      this.container.appendChild(this.block);
      this.detached = false;
    }
  }

  /** Append one chunk's pieces; `meta` = {seq, g, raw, part}. Lean on purpose: a cloned template,
   * one class string, and attributes only for the rare multi-entry and partial-UTF-8 pieces
   * (no dataset or classList objects, which a 100k-token answer would make the garbage
   * collector walk). */
  append(pieces, meta) {
    const part = meta.part ?? 0;
    for (const piece of pieces) {
      const span = tokenTemplate().cloneNode(false);
      let classes = "tok";
      let text; // kept for the glyph toggle
      if (piece.entries.length) {
        if (piece.entries !== FIRST_ENTRY) span.setAttribute("data-e", piece.entries.join(","));
        classes += ` lp p${bucket(piece.logprob)}`;
      }
      if (piece.bytes) {
        classes += " partial";
        span.setAttribute("data-bytes", piece.bytes);
      }
      if (hasWhitespace(piece.text)) {
        classes += " ws";
        text = piece.text;
        span.textContent = this.glyphs ? withGlyphs(piece.text) : piece.text;
      } else {
        span.textContent = piece.text;
      }
      span.className = classes;
      const block = this._currentBlock(piece.text.length, part);
      block.appendChild(span);
      block.gs.push(meta.g);
      block.texts.push(text);
      this.blockChars += piece.text.length;
    }
  }

  _seq(g) {
    return g === undefined ? Infinity : this.seqOf ? this.seqOf(g) : g;
  }

  rewind(seq) {
    this.flush();
    // Whole blocks first (a rewind to the start of a long answer is cheap), then tokens.
    let block = this.container.lastElementChild;
    while (block && this._seq(block.gs[0]) >= seq) {
      const previous = block.previousElementSibling;
      block.remove();
      block = previous;
    }
    if (block) {
      while (block.gs.length && this._seq(block.gs[block.gs.length - 1]) >= seq) {
        block.lastElementChild.remove();
        block.gs.pop();
        block.texts.pop();
      }
    }
    this.block = this.container.lastElementChild;
    this.blockChars = this.block ? this.block.textContent.length : 0;
  }

  /** The last token element of the event at global index g, or null (blocks hold ascending
   * g's, so only the block that can hold it is searched). */
  lastSpanOf(g) {
    this.flush();
    for (let block = this.container.lastElementChild; block; block = block.previousElementSibling) {
      if (!block.gs?.length || block.gs[0] > g) continue;
      const i = block.gs.lastIndexOf(g);
      return i < 0 ? null : block.children[i];
    }
    return null;
  }

  setGlyphs(on) {
    this.flush();
    this.glyphs = on;
    for (const block of this.container.children) {
      block.texts.forEach((text, i) => {
        if (text !== undefined) block.children[i].textContent = on ? withGlyphs(text) : text;
      });
    }
  }
}

/** The global event index (g) of a token element. */
export function tokenG(span) {
  const block = span.parentElement;
  if (!block?.gs) return NaN;
  return block.gs[Array.prototype.indexOf.call(block.children, span)];
}

/** The token elements of the given events (by g) under `root`. */
export function tokensOfEvents(root, gs) {
  const wanted = new Set(gs);
  const found = [];
  for (const block of root.querySelectorAll(".block")) {
    if (!block.gs) continue;
    block.gs.forEach((g, i) => {
      if (wanted.has(g)) found.push(block.children[i]);
    });
  }
  return found;
}
