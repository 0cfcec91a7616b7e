// The raw view: the raw events around the current moment (or the selected token), with line
// numbers and times. Texts are fetched from the server on demand, a window at a time, so a
// 100k-event capture costs nothing until you look. Clicking a raw event highlights its tokens.
//
// Cheap while playing: the window follows the playhead at most a few times a second, rows are
// rebuilt only when the window moves, texts fill their rows in place when they arrive, and
// marking the current row touches only the rows that change.

import { clear, el } from "../dom.js";
import { clockTime } from "../format.js";

export const WINDOW = 40;
export const FOLLOW_EVERY_MS = 300;

export class RawView {
  constructor(root, { request, onSelect }) {
    this.root = root;
    this.list = root.querySelector(".raw-list");
    this.range = root.querySelector(".raw-range");
    this.request = request;
    this.onSelect = onSelect;
    this.cache = new Map(); // "stream:index" -> item
    this.pending = new Set();
    this.rows = new Map(); // index -> <li> of the current window
    this.totals = [];
    this.reset();
    root.querySelector('[data-raw="earlier"]').addEventListener("click", () => this.show(this.stream, Math.max(0, this.start - WINDOW), true));
    root.querySelector('[data-raw="later"]').addEventListener("click", () => this.show(this.stream, this.start + WINDOW, true));
    this.list.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-raw]");
      if (item) this.onSelect(Number(item.dataset.stream), Number(item.dataset.raw));
    });
  }

  reset() {
    this.cache.clear();
    this.pending.clear();
    this.rows.clear();
    this.totals = [];
    this.stream = 0;
    this.start = 0;
    this.end = 0;
    this.drawn = false;
    this.pinned = false;
    this.selected = null;
    this.current = null;
    this.marked = new Set();
    clearTimeout(this.timer);
    this.timer = null;
    this.lastFollow = 0;
    clear(this.list);
  }

  setTotals(totals) {
    const before = this.totals[this.stream] ?? 0;
    this.totals = totals;
    // A live stream grew while its window was not full: show the new events too.
    if (this.drawn && (totals[this.stream] ?? 0) > before && before < this.start + WINDOW) this.show(this.stream, this.start, this.pinned);
  }

  received(message) {
    for (const item of message.items) {
      this.cache.set(`${message.stream}:${item.index}`, item);
      this.pending.delete(`${message.stream}:${item.index}`);
      const row = message.stream === this.stream ? this.rows.get(item.index) : null;
      if (row) this._fill(row, item);
    }
  }

  /** Follow the playback position unless the user moved the window by hand; while playing,
   * at most every FOLLOW_EVERY_MS (the last position wins). */
  follow(stream, raw, { immediate = true } = {}) {
    this.wanted = { stream, raw };
    const now = performance.now();
    if (immediate || now - this.lastFollow >= FOLLOW_EVERY_MS) {
      this._follow();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => this._follow(), FOLLOW_EVERY_MS - (now - this.lastFollow));
    }
  }

  _follow() {
    clearTimeout(this.timer);
    this.timer = null;
    this.lastFollow = performance.now();
    const { stream, raw } = this.wanted;
    this.current = raw === null ? null : { stream, raw };
    if (raw === null) {
      if (!this.pinned && !this.drawn) this.show(stream, 0, false);
      return;
    }
    const outside = stream !== this.stream || raw < this.start || raw >= this.start + WINDOW;
    if (!this.pinned && (outside || !this.drawn)) this.show(stream, Math.max(0, raw - Math.floor(WINDOW / 2)), false);
    else this._mark();
  }

  select(stream, raw) {
    this.selected = { stream, raw };
    this.show(stream, Math.max(0, raw - Math.floor(WINDOW / 2)), true);
  }

  show(stream, start, pinned) {
    const total = this.totals[stream] ?? 0;
    this.stream = stream;
    this.start = Math.max(0, Math.min(start, Math.max(0, total - WINDOW)));
    this.end = Math.min(total, this.start + WINDOW);
    this.pinned = pinned;
    const missing = [];
    for (let i = this.start; i < this.end; i++) {
      const key = `${stream}:${i}`;
      if (!this.cache.has(key) && !this.pending.has(key)) missing.push(i);
    }
    if (missing.length) {
      missing.forEach((i) => this.pending.add(`${stream}:${i}`));
      this.request(stream, missing[0], missing[missing.length - 1] - missing[0] + 1);
    }
    this.render();
  }

  render() {
    this.drawn = true;
    clear(this.list);
    this.rows.clear();
    this.marked.clear();
    const total = this.totals[this.stream] ?? 0;
    this.range.textContent = total ? `stream ${this.stream + 1}: events ${this.start + 1}–${this.end} of ${total}` : "no raw events";
    for (let i = this.start; i < this.end; i++) {
      const row = el("li", { class: "raw-item loading", dataset: { stream: this.stream, raw: i }, tabindex: "-1" });
      const item = this.cache.get(`${this.stream}:${i}`);
      if (item) this._fill(row, item);
      this.rows.set(i, row);
      this.list.appendChild(row);
    }
    this._mark();
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
    const lines = item.text.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n");
    lines.forEach((line, i) => {
      const text = el("span", { class: "raw-row" });
      text.append(el("span", { class: "ln", "aria-hidden": "true" }, String(item.line + i)), document.createTextNode(line));
      pre.appendChild(text);
    });
    row.replaceChildren(head, pre);
    this._markRow(row);
  }

  _markRow(row) {
    const raw = Number(row.dataset.raw);
    const current = !!this.current && this.current.stream === this.stream && this.current.raw === raw;
    const selected = !!this.selected && this.selected.stream === this.stream && this.selected.raw === raw;
    row.classList.toggle("current", current);
    row.classList.toggle("selected", selected);
    if (current || selected) this.marked.add(row);
  }

  _mark() {
    for (const row of this.marked) {
      row.classList.remove("current", "selected");
    }
    this.marked.clear();
    for (const spot of [this.current, this.selected]) {
      const row = spot && spot.stream === this.stream ? this.rows.get(spot.raw) : null;
      if (row) this._markRow(row);
    }
    const selected = this.list.querySelector("li.selected") || this.list.querySelector("li.current");
    if (selected && this.pinned) selected.scrollIntoView({ block: "nearest" });
  }
}
