// The raw view's list of rows: one per raw event of the window, filled with its text (line
// numbers, time, kind) when the text arrives, the current one marked aria-current="true" and
// the selected one outlined, and scrolled (the list itself, never the page) to keep a row in
// view. Texts reach the page only as text nodes.

import { clear, el } from "../dom.js";
import { clockTime } from "../format.js";

const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;

/** A raw event's text as lines to show. A binary frame (an event-stream frame: lengths, header
 * types and CRCs around its JSON) is one line with its control bytes written as \xNN. */
export function rawLines(text) {
  if (CONTROL.test(text)) return [text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)];
  return text.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n");
}

export class RawList {
  constructor(list) {
    this.list = list;
    this.stream = 0;
    this.rows = new Map(); // raw index -> <li>
    this.marked = new Set();
    this.current = null; // raw index of the current event, in this list's stream
    this.selected = null;
  }

  has(index) {
    return this.rows.has(index);
  }

  /** Rows for `indices` of `stream`, filled from `cache` ("stream:index" -> item) where it can. */
  draw(stream, indices, cache) {
    clear(this.list);
    this.rows.clear();
    this.marked.clear();
    this.stream = stream;
    for (const index of indices) {
      const row = el("li", { class: "raw-item loading", dataset: { stream, raw: index }, tabindex: "-1" });
      const item = cache.get(`${stream}:${index}`);
      if (item) this._fill(row, item);
      else row.appendChild(el("div", { class: "raw-head" }, `event ${index + 1}: loading…`));
      this.rows.set(index, row);
      this.list.appendChild(row);
    }
    this.mark(this.current, this.selected);
  }

  clear() {
    this.draw(this.stream, [], new Map());
  }

  /** An item's text arrived: true when its row is in the list. */
  fill(stream, item) {
    const row = stream === this.stream ? this.rows.get(item.index) : null;
    if (row) this._fill(row, item);
    return Boolean(row);
  }

  _fill(row, item) {
    row.className = `raw-item ${item.kind}`;
    const head = el("div", { class: "raw-head" });
    head.append(
      el("span", { class: "raw-line" }, `line ${item.line}`),
      el("span", { class: "raw-t" }, item.t !== null ? clockTime(item.t) : ""),
      el("span", { class: "raw-kind" }, item.event || item.kind),
    );
    const pre = el("pre", { class: "raw-text" });
    const lines = rawLines(item.text);
    lines.forEach((line, i) => {
      const text = el("span", { class: "raw-row" });
      text.append(el("span", { class: "ln", "aria-hidden": "true" }, String(item.line + i)), document.createTextNode(line));
      pre.appendChild(text);
    });
    row.replaceChildren(head, pre);
    this._markRow(row);
  }

  /** Mark the current and selected rows (raw indices of this list's stream, or null). */
  mark(current, selected) {
    this.current = current;
    this.selected = selected;
    for (const row of this.marked) {
      row.classList.remove("current", "selected");
      row.removeAttribute("aria-current");
    }
    this.marked.clear();
    for (const index of [current, selected]) {
      const row = index === null ? null : this.rows.get(index);
      if (row) this._markRow(row);
    }
  }

  _markRow(row) {
    const raw = Number(row.dataset.raw);
    const current = this.current === raw;
    const selected = this.selected === raw;
    row.classList.toggle("current", current);
    row.classList.toggle("selected", selected);
    if (current) row.setAttribute("aria-current", "true");
    else row.removeAttribute("aria-current");
    if (current || selected) this.marked.add(row);
  }

  toTop() {
    this.list.scrollTop = 0;
  }

  /** Scroll the list (never the page) by the least that brings a row into view: into the part
   * of the list inside the window (or, when the list is off screen, into the list). */
  reveal(index) {
    const row = index === null ? null : this.rows.get(index);
    const list = this.list;
    if (!row || list.scrollHeight <= list.clientHeight) return;
    const box = list.getBoundingClientRect();
    const place = row.getBoundingClientRect();
    let top = Math.max(box.top, 0);
    let bottom = Math.min(box.bottom, window.innerHeight);
    if (bottom - top < place.height) {
      top = box.top;
      bottom = box.bottom;
    }
    if (place.top < top || place.height > bottom - top) list.scrollTop += place.top - top;
    else if (place.bottom > bottom) list.scrollTop += place.bottom - bottom;
  }
}
