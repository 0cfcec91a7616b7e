// The token popover: probability, logprob, bytes, and the top alternatives as bars with the
// chosen token marked. Opens on hover, focus or click of a token that has logprobs.

import { clear, el } from "../dom.js";
import { hexBytes, percent, utf8 } from "../format.js";
import { tokenG } from "./text.js";

function shownToken(entry) {
  const text = Array.isArray(entry.bytes) ? utf8(entry.bytes) : entry.token;
  return text === null ? `bytes ${hexBytes(entry.bytes)}` : JSON.stringify(text);
}

export class Popover {
  constructor(root, timeline) {
    this.root = root;
    this.timeline = timeline;
    this.anchor = null;
  }

  entriesOf(span) {
    const g = tokenG(span);
    const event = this.timeline.events[g];
    if (!event || !span.classList.contains("lp")) return [];
    const lp = event.kind === "logprobs" ? event : this._logprobsFor(g, event);
    if (!lp) return [];
    const indices = span.getAttribute("data-e") ?? "0"; // one entry at index 0 is left implicit
    return indices.split(",").map((i) => lp.entries[Number(i)]).filter(Boolean);
  }

  _logprobsFor(g, text) {
    const field = text.kind === "refusal" ? "refusal" : "content";
    for (let i = g + 1; i < this.timeline.events.length; i++) {
      const next = this.timeline.events[i];
      if (next.stream !== text.stream || next.raw !== text.raw) return null;
      if (next.kind === "logprobs" && next.choice === text.choice && next.field === field) return next;
    }
    return null;
  }

  show(span) {
    const entries = this.entriesOf(span);
    if (!entries.length) return;
    this.anchor = span;
    clear(this.root);
    for (const entry of entries) this.root.appendChild(this._entry(entry));
    this.root.hidden = false;
    this._place(span.getBoundingClientRect());
  }

  /** Under the token, or above it when it fits there and not below; inside the window's width
   * (a phone's too). The page never scrolls for it. */
  _place(box) {
    const viewport = document.documentElement;
    const width = this.root.offsetWidth;
    const height = this.root.offsetHeight;
    const below = viewport.clientHeight - box.bottom;
    const above = box.top;
    const flip = below < height + 12 && above > below;
    const top = (flip ? box.top - height - 6 : box.bottom + 6) + window.scrollY;
    const left = Math.max(8, Math.min(box.left, viewport.clientWidth - width - 8)) + window.scrollX;
    this.root.style.top = `${Math.max(window.scrollY + 4, top)}px`;
    this.root.style.left = `${left}px`;
  }

  _entry(entry) {
    const box = el("div", { class: "pop-entry" });
    const p = Math.exp(entry.logprob);
    box.appendChild(el("div", { class: "pop-token", "data-pop": "token" }, shownToken(entry)));
    const facts = el("dl", { class: "kv" });
    facts.append(
      el("dt", {}, "probability"), el("dd", { "data-pop": "probability" }, percent(p)),
      el("dt", {}, "logprob"), el("dd", { "data-pop": "logprob" }, String(entry.logprob)),
      el("dt", {}, "bytes"), el("dd", { "data-pop": "bytes" }, entry.bytes ? `${hexBytes(entry.bytes)}${utf8(entry.bytes) === null ? " (part of a character)" : ""}` : "none"),
    );
    box.appendChild(facts);
    const alternatives = entry.top_logprobs || [];
    if (alternatives.length) {
      const list = el("ol", { class: "alternatives", "data-testid": "alternatives" });
      for (const alt of alternatives) {
        const chosen = alt.token === entry.token;
        const item = el("li", { class: chosen ? "alt chosen" : "alt", "data-testid": "alternative" });
        const bar = el("span", { class: "bar" });
        bar.style.width = `${Math.max(1, Math.exp(alt.logprob) * 100)}%`;
        item.append(
          el("span", { class: "alt-token" }, shownToken(alt)),
          el("span", { class: "alt-bar" }),
          el("span", { class: "alt-p", title: `logprob ${alt.logprob}` }, percent(Math.exp(alt.logprob))),
        );
        item.children[1].appendChild(bar);
        if (chosen) item.appendChild(el("span", { class: "alt-chosen", "aria-label": "chosen" }, "✓ chosen"));
        list.appendChild(item);
      }
      box.appendChild(list);
    } else {
      box.appendChild(el("p", { class: "muted" }, "no alternatives in this capture (top_logprobs was empty)"));
    }
    return box;
  }

  hide() {
    this.root.hidden = true;
    this.anchor = null;
  }
}
