// The selected token and the raw event it came from. Clicking a token selects it (its popover,
// its chunk in the raw view); clicking a raw event highlights its tokens; hovering or focusing
// a token with logprobs shows its popover. A share link names the selected token by lane,
// choice and index (share.js); reopening the link selects it again.

import { LANES } from "./views/choices.js";
import { tokenG, tokensOfEvents } from "./views/text.js";

const AREAS = Object.values(LANES)
  .map((name) => `.${name}`)
  .join(", ");

export class Selection {
  constructor(streamsRoot, { timeline, popover, rawView }) {
    this.streamsRoot = streamsRoot;
    this.timeline = timeline;
    this.popover = popover;
    this.rawView = rawView;
    this.span = null;
    this._listen();
  }

  /** The token elements of one lane of one choice (all streams, in page order). */
  tokensOf(lane, choice) {
    return [...this.streamsRoot.querySelectorAll(`.${LANES[lane]}[data-choice="${choice}"] .tok`)];
  }

  /** The selected token as a link names it, {lane, choice, token}, or null. */
  ref() {
    const span = this.span;
    const area = span?.isConnected ? span.closest(AREAS) : null;
    if (!area) return null;
    const lane = area.dataset.lane;
    const choice = Number(area.dataset.choice);
    return { lane, choice, token: this.tokensOf(lane, choice).indexOf(span) };
  }

  /** Select the token a link names, if it is on the screen. */
  restore({ lane = "text", choice, token }) {
    const span = this.tokensOf(lane, choice ?? 0)[token];
    if (span) this.select(span);
  }

  select(span) {
    this.span?.classList.remove("selected");
    this.span = span;
    span.classList.add("selected");
    span.tabIndex = -1;
    span.focus({ preventScroll: true });
    this.popover.show(span);
    const event = this.timeline.events[tokenG(span)];
    if (event) this.rawView.select(event.stream, event.raw);
  }

  /** A raw event clicked: outline its tokens and bring the first into view. */
  highlightRaw(stream, raw) {
    for (const span of this.streamsRoot.querySelectorAll(".tok.raw-hit")) span.classList.remove("raw-hit");
    // The chunk's events are found in the timeline, their token elements by g.
    const gs = this.timeline.stream(stream).events.filter((e) => e.raw === raw).map((e) => e.g);
    const streamRoot = this.streamsRoot.querySelector(`.stream[data-stream="${stream}"]`);
    const spans = streamRoot ? tokensOfEvents(streamRoot, gs) : [];
    spans.forEach((span) => span.classList.add("raw-hit"));
    this.rawView.select(stream, raw);
    spans[0]?.scrollIntoView({ block: "nearest" });
  }

  _listen() {
    const root = this.streamsRoot;
    root.addEventListener("pointerover", (event) => {
      const span = event.target.closest(".tok.lp");
      if (span) this.popover.show(span);
    });
    root.addEventListener("pointerout", (event) => {
      const span = event.target.closest(".tok.lp");
      if (span && span !== this.span && !span.contains(event.relatedTarget)) this.popover.hide();
    });
    root.addEventListener("focusin", (event) => {
      const span = event.target.closest(".tok.lp");
      if (span) this.popover.show(span);
    });
    root.addEventListener("click", (event) => {
      const span = event.target.closest(".tok");
      if (span) this.select(span);
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.popover.hide();
    });
  }
}
