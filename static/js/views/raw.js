// The raw view: the raw events around the current moment (or the selected token), with line
// numbers and times. Texts are fetched from the server on demand, a window at a time, so a
// 100k-event capture costs nothing until you look. Clicking a raw event highlights its tokens.

import { clear, el } from "../dom.js";
import { clockTime } from "../format.js";

export const WINDOW = 40;

export class RawView {
  constructor(root, { request, onSelect }) {
    this.root = root;
    this.list = root.querySelector(".raw-list");
    this.range = root.querySelector(".raw-range");
    this.request = request;
    this.onSelect = onSelect;
    this.cache = new Map(); // "stream:index" -> item
    this.pending = new Set();
    this.stream = 0;
    this.start = 0;
    this.current = null; // {stream, raw}
    this.selected = null;
    this.totals = [];
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
    this.totals = [];
    this.start = 0;
    this.drawn = false;
    this.selected = null;
    this.current = null;
    clear(this.list);
  }

  setTotals(totals) {
    const before = this.totals[this.stream] ?? 0;
    this.totals = totals;
    // A live stream grew while its window was not full: show the new events too.
    if (this.drawn && (totals[this.stream] ?? 0) > before && before < this.start + WINDOW) this.show(this.stream, this.start, this.pinned);
  }

  received(message) {
    message.items.forEach((item) => {
      this.cache.set(`${message.stream}:${item.index}`, item);
      this.pending.delete(`${message.stream}:${item.index}`);
    });
    if (message.stream === this.stream) this.render();
  }

  /** Follow the playback position unless the user moved the window by hand. */
  follow(stream, raw) {
    this.current = raw === null ? null : { stream, raw };
    if (raw === null) {
      if (!this.pinned && !this.drawn) this.show(stream, 0, false);
      return;
    }
    const outside = stream !== this.stream || raw < this.start || raw >= this.start + WINDOW;
    if (!this.pinned && (outside || !this.drawn)) {
      this.show(stream, Math.max(0, raw - Math.floor(WINDOW / 2)), false);
    } else {
      this._mark();
    }
  }

  select(stream, raw) {
    this.selected = { stream, raw };
    this.show(stream, Math.max(0, raw - Math.floor(WINDOW / 2)), true);
  }

  show(stream, start, pinned) {
    const total = this.totals[stream] ?? 0;
    this.stream = stream;
    this.start = Math.max(0, Math.min(start, Math.max(0, total - WINDOW)));
    this.pinned = pinned;
    const missing = [];
    for (let i = this.start; i < Math.min(total, this.start + WINDOW); i++) {
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
    const total = this.totals[this.stream] ?? 0;
    const end = Math.min(total, this.start + WINDOW);
    this.range.textContent = total ? `stream ${this.stream + 1}: events ${this.start + 1}–${end} of ${total}` : "no raw events";
    for (let i = this.start; i < end; i++) {
      const item = this.cache.get(`${this.stream}:${i}`);
      const li = el("li", { class: `raw-item ${item ? item.kind : "loading"}`, dataset: { stream: this.stream, raw: i }, tabindex: "-1" });
      const head = el("div", { class: "raw-head" });
      head.append(
        el("span", { class: "raw-line" }, item ? `line ${item.line}` : "…"),
        el("span", { class: "raw-t" }, item && item.t !== null ? clockTime(item.t) : ""),
        el("span", { class: "raw-kind" }, item ? item.event || item.kind : ""),
      );
      li.append(head, this._text(item));
      this.list.appendChild(li);
    }
    this._mark();
  }

  _text(item) {
    const pre = el("pre", { class: "raw-text" });
    if (!item) return pre;
    const lines = item.text.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n");
    lines.forEach((line, i) => {
      const row = el("span", { class: "raw-row" });
      row.append(el("span", { class: "ln", "aria-hidden": "true" }, String(item.line + i)), document.createTextNode(line));
      pre.appendChild(row);
    });
    return pre;
  }

  _mark() {
    for (const li of this.list.children) {
      const stream = Number(li.dataset.stream);
      const raw = Number(li.dataset.raw);
      li.classList.toggle("current", !!this.current && this.current.stream === stream && this.current.raw === raw);
      li.classList.toggle("selected", !!this.selected && this.selected.stream === stream && this.selected.raw === raw);
    }
    const selected = this.list.querySelector("li.selected") || this.list.querySelector("li.current");
    if (selected && this.pinned) selected.scrollIntoView({ block: "nearest" });
  }
}
