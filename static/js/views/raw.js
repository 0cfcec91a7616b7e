// The raw view: the raw events around the current moment (or the selected token), and a
// filter over their text as in DevTools' EventStream tab. Texts are fetched from the server on
// demand, a window at a time, so a 100k-event capture costs nothing until you look; a filter
// reads them through in pages and keeps only the matching indices (rawsearch.js). Clicking a
// raw event highlights its tokens. The rows themselves are rawlist.js.
//
// It follows playback: the current row is kept in view. Moving the list by hand (scrolling it,
// Earlier/Later, selecting a token or an event) stops that until "Follow playback" is pressed
// or playback moves on (page.js). Cheap while playing: the window follows the playhead at most
// a few times a second, rows are rebuilt only when the window moves, texts fill their rows in
// place when they arrive, and marking the current row touches only the rows that change.

import { MAX_RAW_REQUEST } from "../protocol.js";
import { RawSearch } from "../rawsearch.js";
import { RawList } from "./rawlist.js";

export const WINDOW = 40;
export const FOLLOW_EVERY_MS = 300;
export const FILTER_DELAY_MS = 150;
export const MAX_SEARCH_CACHE = 2000; // matching texts a filter keeps (others are asked again)

export class RawView {
  constructor(root, { request, onSelect }) {
    this.root = root;
    this.rowsList = new RawList(root.querySelector(".raw-list"));
    this.range = root.querySelector(".raw-range");
    this.filter = root.querySelector('[data-testid="raw-filter"]');
    this.followButton = root.querySelector('[data-testid="raw-follow"]');
    this.request = request;
    this.onSelect = onSelect;
    this.maxRequest = MAX_RAW_REQUEST; // until the server's max_raw_request (hello) says
    this.cache = new Map(); // "stream:index" -> item
    this.pending = new Set();
    this.query = "";
    this.reset();
    root.querySelector('[data-raw="earlier"]').addEventListener("click", () => this.page(-1));
    root.querySelector('[data-raw="later"]').addEventListener("click", () => this.page(1));
    this.followButton.addEventListener("click", () => this.resume());
    const list = this.rowsList.list;
    list.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-raw]");
      if (item) this.onSelect(Number(item.dataset.stream), Number(item.dataset.raw));
    });
    // The user moving the list: a wheel, a finger, or its scroll bar (a press on the list itself).
    const byHand = () => this.detach();
    list.addEventListener("wheel", byHand, { passive: true });
    list.addEventListener("touchmove", byHand, { passive: true });
    list.addEventListener("pointerdown", (event) => event.target === list && byHand());
    this.filter.addEventListener("input", () => {
      clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => this.setQuery(this.filter.value), FILTER_DELAY_MS);
    });
  }

  reset() {
    this.cache.clear();
    this.pending.clear();
    this.totals = [];
    this.stream = 0;
    this.start = 0;
    this.end = 0;
    this.drawn = false;
    this.following = true;
    this.followButton.hidden = true;
    this.selected = null; // {stream, raw}
    this.current = null;
    this.target = null; // the raw index kept in view: the current one, or the one selected
    this.wanted = null;
    this.search = this.query ? new RawSearch(this.query, 0) : null;
    this.searchCached = 0;
    clearTimeout(this.timer);
    this.timer = null;
    this.lastFollow = 0;
    this.rowsList.mark(null, null);
    this.rowsList.clear();
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
      filled = this.rowsList.fill(message.stream, item) || filled;
    }
    // Rows grew from "loading…" to their text and moved the rows below: keep the target in view.
    if (filled) this._revealSoon();
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
    const outside = position < this.start || position >= this.start + WINDOW;
    const moved = redraw || !this.drawn || outside;
    if (moved) this.show(stream, position - Math.floor(WINDOW / 2));
    else this._mark();
    if (raw === null) {
      this.target = null;
      this.rowsList.toTop();
    } else if (moved || this.target !== raw) {
      this.target = this.rowsList.has(raw) ? raw : null;
      this._revealSoon();
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
    if (this.wanted) this._follow(true);
  }

  page(direction) {
    this.detach();
    this.show(this.stream, this.start + direction * WINDOW);
    this.rowsList.toTop();
  }

  /** A token's chunk, or an event clicked: show it, selected, and stop following. */
  select(stream, raw) {
    this.selected = { stream, raw };
    this.detach();
    this._switchStream(stream);
    this.show(stream, Math.max(0, this.positionOf(raw)) - Math.floor(WINDOW / 2));
    this.target = raw;
    this._revealSoon();
  }

  /** Bring the target row into view at the next frame: measuring it now would force a layout
   * of the whole page in the middle of a jump, and the frame lays it out anyway. */
  _revealSoon() {
    if (this.revealPending) return;
    this.revealPending = true;
    requestAnimationFrame(() => {
      this.revealPending = false;
      this.rowsList.reveal(this.target);
    });
  }

  // ------------------------------------------------------------------ drawing
  show(stream, start) {
    this._switchStream(stream);
    const count = this.count();
    this.start = Math.max(0, Math.min(start, Math.max(0, count - WINDOW)));
    this.end = Math.min(count, this.start + WINDOW);
    this._fetch();
    this.drawn = true;
    this._describe();
    const indices = [];
    for (let position = this.start; position < this.end; position++) indices.push(this.indexAt(position));
    this.rowsList.draw(stream, indices, this.cache);
    this._mark();
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
      this.range.textContent = total ? `${where}: raw events ${this.start + 1}–${this.end} of ${total}` : "no raw events";
      return;
    }
    const found = this.search.matches.length;
    const shown = found ? `, showing ${this.start + 1}–${this.end}` : "";
    const reading = this.search.done(total) ? "" : ` (searching: ${this.search.next} of ${total} read)`;
    this.range.textContent = `${where}: ${found} of ${total} events match${shown}${reading}`;
  }

  _mark() {
    const here = (spot) => (spot && spot.stream === this.stream ? spot.raw : null);
    this.rowsList.mark(here(this.current), here(this.selected));
  }
}
