// One section per stream: a head, then its views (views/panels.js) in their slots. The screen
// is always a function of the events before the cursor: views apply timeline events in order
// and rewind by seq. Every view keeps one contract:
//
//   new View({index, info, timeline, options, progress})
//   root           its element, placed in `slot` ("head", "main" or "panels")
//   kinds          the event kinds it takes (the others never reach it)
//   apply(event, g)   one more event (g: its index in the whole timeline)
//   rewind(seq)    forget this stream's events from seq on
//   flush()        bring the element up to date (called once the screen settles, and per
//                  frame during a long jump); `progress` says how far the stream has played
//   setSummary(s)  the stream is complete: what `inspect --json` says of it (docs/protocol.md)

import { el } from "../dom.js";
import { requestPanel } from "../request.js";
import { PANELS } from "./panels.js";
import { Progress } from "./progress.js";

// Where a stream's times came from, as the server says it (Stream.timing, docs/capture-format.md).
export const TIMING_WORDS = {
  recorded: "recorded timing: the time of each network read",
  synthesized: "synthesized timing: made up by a generator, not measured",
  har: "HAR timings: replayed from the first byte to the last, the events spread evenly between",
  none: "no timing in capture: paced evenly",
};

export function timingOf(info) {
  if (Object.hasOwn(TIMING_WORDS, info.timing ?? "")) return info.timing;
  return info.timed ? "recorded" : "none";
}

export class StreamView {
  constructor(parent, info, timeline, options) {
    this.index = info.index;
    this.progress = new Progress(timeline, info.index);
    this.root = el("section", { class: "stream", "data-testid": "stream", dataset: { stream: info.index }, "aria-label": `Stream ${info.index + 1}` });
    const head = el("header", { class: "stream-head" });
    head.appendChild(el("h2", {}, `Stream ${info.index + 1}`));
    const slots = { head, main: el("div", { class: "stream-main" }), panels: el("div", { class: "panels" }) };
    const context = { index: info.index, info, timeline, options, progress: this.progress };
    this.views = PANELS.map((View) => new View(context));
    this.routes = new Map(); // kind -> the views that take it, in list order
    for (const view of this.views) {
      slots[view.slot].appendChild(view.root);
      for (const kind of view.kinds) {
        if (!this.routes.has(kind)) this.routes.set(kind, []);
        this.routes.get(kind).push(view);
      }
    }
    head.append(el("span", { class: "origin" }, info.origin), el("span", { class: "timing", "data-testid": "stream-timing", "data-timing": timingOf(info) }, TIMING_WORDS[timingOf(info)]));
    this.root.append(head);
    const request = requestPanel(info.request); // the request beside the stream, when known
    if (request) this.root.append(request);
    this.root.append(slots.main, slots.panels);
    parent.appendChild(this.root);
  }

  apply(event, g) {
    this.progress.apply(event);
    const views = this.routes.get(event.kind);
    if (views === undefined) return;
    for (let i = 0; i < views.length; i++) views[i].apply(event, g);
  }

  rewind(seq) {
    this.progress.rewind(seq);
    for (const view of this.views) view.rewind(seq);
  }

  flush() {
    for (const view of this.views) view.flush();
  }

  setSummary(summary) {
    for (const view of this.views) view.setSummary(summary);
    this.flush();
  }

  setGlyphs(on) {
    for (const view of this.views) view.setGlyphs?.(on);
  }
}
