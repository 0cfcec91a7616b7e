// The raw view: the raw events around the current moment (or the selected token), with line
// numbers and times, and a filter over their text as in DevTools' EventStream tab. Texts are
// fetched from the server on demand, a window at a time, so a 100k-event capture costs nothing
// until you look; a filter reads them through in pages and keeps only the matching indices
// (rawsearch.js). Clicking a raw event highlights its tokens.
//
// It follows playback: the current row (aria-current="true") is kept in view by scrolling the
// list itself, never the page. Moving the list by hand (scrolling it, Earlier/Later, selecting
// a token or an event) stops that until "Follow playback" is pressed or playback moves on
// (page.js). Cheap while playing: the window follows the playhead at most a few times a second,
// rows are rebuilt only when the window moves, texts fill their rows in place when they
// arrive, and marking the current row touches only the rows that change.

import { clear, el } from "../dom.js";
import { clockTime } from "../format.js";
import { RawSearch } from "../rawsearch.js";

export const WINDOW = 40;
export const FOLLOW_EVERY_MS = 300;
export const FILTER_DELAY_MS = 150;
export const MAX_SEARCH_CACHE = 2000; // matching texts a filter keeps (others are asked again)

export class RawView {
  constructor(root, { request, onSelect }) {
    this.root = root;
    this.list = root.querySelector(".raw-list");
    this.range = root.querySelector(".raw-range");
    this.filter = root.querySelector('[data-testid="raw-filter"]');
    this.followButton = root.querySelector('[data-testid="raw-follow"]');
    this.request = request;
    this.onSelect = onSelect;
    this.maxRequest = 500; // the server's max_raw_request (hello)
    this.cache = new Map(); // "stream:index" -> item
    this.pending = new Set();
    this.rows = new Map(); // raw index -> <li> of the current window
    this.query = "";
    this.reset();
    root.querySelector('[data-raw="earlier"]').addEventListener("click", () => this.page(-1));
    root.querySelector('[data-raw="later"]').addEventListener("click", () => this.page(1));
    this.followButton.addEventListener("click", () => this.resume());
    this.list.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-raw]");
      if (item) this.onSelect(Number(item.dataset.stream), Number(item.dataset.raw));
    });
    // The user moving the list: a wheel, a finger, or its scroll bar (a press on the list itself).
    const byHand = () => this.detach();
    this.list.addEventListener("wheel", byHand, { passive: true });
    this.list.addEventListener("touchmove", byHand, { passive: true });
    this.list.addEventListener("pointerdown", (event) => event.target === this.list && byHand());
    this.filter.addEventListener("input", () => {
      clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => this.setQuery(this.filter.value), FILTER_DELAY_MS);
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
    this.following = true;
    this.followButton.hidden = true;
    this.selected = null;
    this.current = null;
    this.revealed = null;
    this.target = null; // the raw event kept in view: the current one, or the one selected
    this.wanted = null;
    this.marked = new Set();
    this.search = this.query ? new RawSearch(this.query, 0) : null;
    this.searchCached = 0;
    clearTimeout(this.timer);
    this.timer = null;
    this.lastFollow = 0;
    clear(this.list);
  }

  setTotals(totals) {
    const before = this.totals[this.stream] ?? 0;
    this.totals = totals;
    const now = totals[this.stream] ?? 0;
    if (this.search) this._searchOn();
    // A live stream grew while its window was not full: show the new events too.
    else if (this.drawn && now > before && before < this.start + WINDOW) this.show(this.stream, this.start);
  }

  // ------------------------------------------------------------------ rows by position
  /** Rows in the list: the stream's raw events, or those that match the filter. */
  count() {
    return this.search ? this.search.matches.length : (this.totals[this.stream] ?? 0);
  }

  indexAt(position) {
    return this.search ? this.search.matches[position] : position;
  }

  /** The position of `raw` (with a filter: of the last match at or before it, -1 if none). */
  positionOf(raw) {
    return this.search ? this.search.positionOf(raw) : raw;
  }

  // ------------------------------------------------------------------ filter
  setQuery(text) {
    const query = text.trim();
    if (query === this.query) return;
    this.query = query;
    this.search = query ? new RawSearch(query, this.stream) : null;
    this.searchCached = 0;
    this.root.dataset.filtered = query ? "true" : "false";
    this._searchOn();
    this._refollow();
  }

  _switchStream(stream) {
    if (stream === this.stream) return;
    this.stream = stream;
    if (this.search) {
      this.search = new RawSearch(this.query, stream);
      this.searchCached = 0;
      this._searchOn();
    }
  }

  /** Ask for the next page a filter needs, if any. */
  _searchOn() {
    if (!this.search) return;
    const page = this.search.want(this.totals[this.stream] ?? 0, this.maxRequest);
    if (page) this.request(this.stream, page.start, page.count);
    this._describe();
  }

  // ------------------------------------------------------------------ answers
  received(message) {
    const search = this.search;
    const scanned = search !== null && search.take(message);
    let filled = false;
    for (const item of message.items) {
      const key = `${message.stream}:${item.index}`;
      this.pending.delete(key);
      if (scanned && !this.cache.has(key)) {
        if (!search.test(item) || this.searchCached >= MAX_SEARCH_CACHE) continue;
        this.searchCached++;
      }
      this.cache.set(key, item);
      const row = message.stream === this.stream ? this.rows.get(item.index) : null;
      if (row) {
        this._fill(row, item);
        filled = true;
      }
    }
    if (filled) this._reveal(); // rows grew from "loading…" to their text: keep the target in view
    if (scanned) {
      this._searchOn();
      this._refollow();
    }
  }

  /** Show the window again where it belongs (the filter changed, or found more). */
  _refollow() {
    if (this.following && this.wanted) this._follow(true);
    else this.show(this.stream, this.start);
  }

  // ------------------------------------------------------------------ following
  /** Follow the playback position; while playing, at most every FOLLOW_EVERY_MS (the last
   * position wins). */
  follow(stream, raw, { immediate = true } = {}) {
    this.wanted = { stream, raw };
    const now = performance.now();
    if (immediate || now - this.lastFollow >= FOLLOW_EVERY_MS) {
      this._follow();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => this._follow(), FOLLOW_EVERY_MS - (now - this.lastFollow));
    }
  }

  _follow(redraw = false) {
    clearTimeout(this.timer);
    this.timer = null;
    this.lastFollow = performance.now();
    const { stream, raw } = this.wanted;
    this.current = raw === null ? null : { stream, raw };
    if (!this.following) {
      if (redraw || !this.drawn) this.show(this.stream, this.start);
      else this._mark();
      return;
    }
    this._switchStream(stream);
    const position = raw === null ? 0 : Math.max(0, this.positionOf(raw));
    if (redraw || !this.drawn || position < this.start || position >= this.start + WINDOW) {
      this.show(stream, position - Math.floor(WINDOW / 2));
    } else {
      this._mark();
    }
    if (raw === null) {
      this.target = null;
      this.list.scrollTop = 0;
      return;
    }
    const key = this.rows.has(raw) ? raw : null;
    if (key !== this.revealed || redraw) {
      this.revealed = key;
      this.target = key;
      this._reveal();
    }
  }

  /** The user moved the list: stop following until resume(). */
  detach() {
    this.target = null;
    if (!this.following) return;
    this.following = false;
    this.followButton.hidden = false;
  }

  resume() {
    if (this.following) return;
    this.following = true;
    this.followButton.hidden = true;
    this.revealed = null;
    if (this.wanted) this._follow();
  }

  page(direction) {
    this.detach();
    this.show(this.stream, this.start + direction * WINDOW);
    this.list.scrollTop = 0;
  }

  /** A token's chunk, or an event clicked: show it, selected, and stop following. */
  select(stream, raw) {
    this.selected = { stream, raw };
    this.detach();
    this._switchStream(stream);
    this.show(stream, Math.max(0, this.positionOf(raw)) - Math.floor(WINDOW / 2));
    this.target = raw;
    this._reveal();
  }

  /** Scroll the list (never the page) by the least that brings the target row into view: into
   * the part of the list inside the window (or, when the list is off screen, into the list).
   * Called again as texts arrive, since a row filled with its text grows and moves the rows
   * below it. */
  _reveal() {
    const row = this.target === null ? null : this.rows.get(this.target);
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

  // ------------------------------------------------------------------ drawing
  show(stream, start) {
    this._switchStream(stream);
    const count = this.count();
    this.start = Math.max(0, Math.min(start, Math.max(0, count - WINDOW)));
    this.end = Math.min(count, this.start + WINDOW);
    this._fetch();
    this.render();
  }

  /** Ask for the texts the window lacks: one request per run of consecutive events. */
  _fetch() {
    let run = null;
    const send = () => {
      if (run) this.request(this.stream, run.start, run.count);
      run = null;
    };
    for (let position = this.start; position < this.end; position++) {
      const index = this.indexAt(position);
      const key = `${this.stream}:${index}`;
      if (this.cache.has(key) || this.pending.has(key)) {
        send();
        continue;
      }
      this.pending.add(key);
      if (run && run.start + run.count === index && run.count < this.maxRequest) run.count++;
      else {
        send();
        run = { start: index, count: 1 };
      }
    }
    send();
  }

  _describe() {
    const total = this.totals[this.stream] ?? 0;
    const where = `stream ${this.stream + 1}`;
    if (!this.search) {
      this.range.textContent = total ? `${where}: events ${this.start + 1}–${this.end} of ${total}` : "no raw events";
      return;
    }
    const found = this.search.matches.length;
    const shown = found ? `, showing ${this.start + 1}–${this.end}` : "";
    const reading = this.search.done(total) ? "" : ` (searching: ${this.search.next} of ${total} read)`;
    this.range.textContent = `${where}: ${found} of ${total} events match${shown}${reading}`;
  }

  render() {
    this.drawn = true;
    clear(this.list);
    this.rows.clear();
    this.marked.clear();
    this.revealed = null;
    this._describe();
    for (let position = this.start; position < this.end; position++) {
      const index = this.indexAt(position);
      const row = el("li", { class: "raw-item loading", dataset: { stream: this.stream, raw: index }, tabindex: "-1" });
      const item = this.cache.get(`${this.stream}:${index}`);
      if (item) this._fill(row, item);
      else row.appendChild(el("div", { class: "raw-head" }, `event ${index + 1}: loading…`));
      this.rows.set(index, row);
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
    if (current) row.setAttribute("aria-current", "true");
    else row.removeAttribute("aria-current");
    if (current || selected) this.marked.add(row);
  }

  _mark() {
    for (const row of this.marked) {
      row.classList.remove("current", "selected");
      row.removeAttribute("aria-current");
    }
    this.marked.clear();
    for (const spot of [this.current, this.selected]) {
      const row = spot && spot.stream === this.stream ? this.rows.get(spot.raw) : null;
      if (row) this._markRow(row);
    }
  }
}
