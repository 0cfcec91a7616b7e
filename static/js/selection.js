// The selected token and the raw event it came from. Clicking a token selects it (its popover,
// its chunk in the raw view); clicking a raw event highlights its tokens; hovering or focusing
// a token with logprobs shows its popover. A share link names the selected token by lane,
// choice and index (share.js); reopening the link selects it again.
//
// From the keyboard each text (a lane of a choice) is one composite widget with a roving
// tabindex, as WAI-ARIA's listbox and grid patterns do: one Tab stop (the text; focus goes on
// to its current token), arrows move between tokens (Home/End: first/last), Enter or Space
// selects the token and opens its popover, Escape closes it. Keys used here do not reach the
// transport (Space does not toggle playback on a token).

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
    this.current = new WeakMap(); // text area -> its current token (the one arrows move from)
    this.pointing = false; // a pointer is down: the focus it gives is not the keyboard's
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
    const area = span.closest(AREAS);
    if (area) this.current.set(area, span);
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
    // A pointer (a click, a tap) focuses the text on its way to the token it selects: only a
    // focus that came from the keyboard (Tab) moves on to the text's current token.
    root.addEventListener("pointerdown", () => {
      this.pointing = true;
    });
    document.addEventListener("pointerup", () => setTimeout(() => (this.pointing = false), 0));
    root.addEventListener("focusin", (event) => {
      const area = event.target.matches?.(AREAS) ? event.target : null;
      if (!area || this.pointing) return;
      // Tab reached the text: on to its current token (Shift+Tab from a token leaves: _key).
      const token = this._currentOf(area);
      if (token) this._rove(area, token);
    });
    root.addEventListener("keydown", (event) => this._key(event));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.popover.hide();
    });
  }

  _currentOf(area) {
    const kept = this.current.get(area);
    return kept?.isConnected && area.contains(kept) ? kept : area.querySelector(".tok");
  }

  /** Make `token` its text's current token and focus it (its popover opens on focus). */
  _rove(area, token) {
    this.current.set(area, token);
    token.tabIndex = -1;
    token.focus({ preventScroll: true });
    token.scrollIntoView({ block: "nearest" });
  }

  _key(event) {
    const token = event.target.closest?.(".tok");
    const area = token?.closest(AREAS);
    if (!token || !area || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Tab") {
      if (event.shiftKey) {
        // Past the text, not back onto it: it is not a Tab stop until focus has left.
        // A Tab stop again once the focus has gone (the move's target is chosen by then).
        area.tabIndex = -1;
        area.addEventListener("focusout", () => (area.tabIndex = 0), { once: true });
      }
      return;
    }
    const tokens = () => [...area.querySelectorAll(".tok")];
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") {
      const all = tokens();
      next = all[all.indexOf(token) + 1] ?? null;
    } else if (event.key === "ArrowLeft" || event.key === "ArrowUp") {
      const all = tokens();
      next = all[all.indexOf(token) - 1] ?? null;
    } else if (event.key === "Home") next = area.querySelector(".tok");
    else if (event.key === "End") next = tokens().at(-1) ?? null;
    else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      event.stopPropagation();
      this.select(token);
      return;
    } else return;
    event.preventDefault();
    event.stopPropagation();
    if (next) {
      if (this.popover.anchor === token) this.popover.hide();
      this._rove(area, next);
    }
  }
}
