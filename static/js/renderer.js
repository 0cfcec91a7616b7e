// Brings the screen to a cursor: applies timeline events forward, rewinds by seq backward.
// Small moves happen at once; a big jump (seek to the end of a 100k-token capture) is applied
// over several animation frames within a time budget each, so no task blocks the page long. `busy` says
// whether the screen is still catching up (the page shows it as data-rendering).

import { StreamView } from "./views/streams.js";

export const SLICE = 2500; // a move this small is applied at once
export const STEP = 256; // events per step while catching up on a big jump
export const FRAME_BUDGET_MS = 30; // work per animation frame while catching up

export class Renderer {
  constructor(root, timeline, options) {
    this.root = root;
    this.timeline = timeline;
    this.options = options; // {glyphs}
    this.views = [];
    this.rendered = 0; // events on screen
    this.target = 0;
    this.busy = false;
    this.onSettled = null;
    this.requestFrame = options.requestFrame ?? ((fn) => requestAnimationFrame(fn));
  }

  reset() {
    for (const view of this.views) view.root.remove();
    this.views = [];
    this.rendered = 0;
    this.target = 0;
  }

  addStream(info) {
    this.views[info.index] = new StreamView(this.root, info, this.timeline, this.options);
  }

  view(index) {
    return this.views[index];
  }

  moveTo(cursor) {
    this.target = cursor;
    if (cursor < this.rendered) this._rewind(cursor);
    if (this.target - this.rendered <= SLICE) {
      this._apply(this.target);
      this._settle();
    } else if (!this.busy) {
      this.busy = true;
      this.root.dataset.rendering = "true";
      this._step();
    }
  }

  _step() {
    if (this.target < this.rendered) this._rewind(this.target);
    // A time budget per frame, not a fixed count: a slow machine does less per frame
    // instead of making one long task.
    const started = performance.now();
    while (this.rendered < this.target && performance.now() - started < FRAME_BUDGET_MS) {
      this._apply(Math.min(this.target, this.rendered + STEP));
    }
    if (this.rendered === this.target) {
      this.busy = false;
      delete this.root.dataset.rendering;
      this._settle();
    } else {
      for (const view of this.views) view.flush(); // this frame shows what is done so far
      this.requestFrame(() => this._step());
    }
  }

  _apply(cursor) {
    const events = this.timeline.events;
    for (let g = this.rendered; g < cursor; g++) this.views[events[g].stream].apply(events[g], g);
    this.rendered = Math.max(this.rendered, cursor);
  }

  _rewind(cursor) {
    const events = this.timeline.events;
    const first = new Map(); // stream -> first seq to remove
    for (let g = cursor; g < this.rendered; g++) {
      if (!first.has(events[g].stream)) first.set(events[g].stream, events[g].seq);
    }
    for (const [stream, seq] of first) this.views[stream].rewind(seq);
    this.rendered = cursor;
  }

  /** Re-derive what depends on the whole timeline (a stream that has ended since). */
  refresh() {
    if (!this.busy) this._settle();
  }

  _settle() {
    for (const view of this.views) view.flush();
    this.onSettled?.(this.rendered);
  }

  setGlyphs(on) {
    this.options.glyphs = on;
    for (const view of this.views) view.setGlyphs(on);
  }
}
