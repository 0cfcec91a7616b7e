// A choice's citations and annotations (citing.js), listed under its answer and numbered; the
// answer text each one cites carries its numbers at the end of the cited block (a CSS marker
// on the block's last token, so the lane's text stays exactly the answer). Sources are text;
// a URL is a link only when it is http(s), opened without referrer or opener.

import { clear, el } from "../dom.js";
import { citationView, safeHref } from "../citing.js";

export const REL = "noopener noreferrer nofollow";

/** A URL as a link when it is http(s), else as text. */
export function urlElement(url, attrs = {}) {
  const href = safeHref(url);
  if (href === null) return el("span", { ...attrs, class: `${attrs.class ?? ""} unlinked`.trim() }, url);
  return el("a", { ...attrs, href, rel: REL, target: "_blank" }, url);
}

export class Citations {
  /** `list`: the <ol> under the answer; `lane`: {blockText(block), lastToken(block)}. */
  constructor(list, lane) {
    this.list = list;
    this.lane = lane;
    this.marked = [];
  }

  /** The list, then the marks (list and marks change when the block state does). */
  render(state) {
    clear(this.list);
    state.citations.forEach((event, i) => {
      const view = citationView(event.view, { sources: state.sources, blockText: this.lane.blockText(event.block) });
      this.list.appendChild(this._item(i + 1, event, view));
    });
    this.list.hidden = !this.list.firstChild;
    this.mark(state);
  }

  /** Each cited block's numbers on its last token (again when its text grows). */
  mark(state) {
    for (const span of this.marked) {
      span.classList.remove("cited");
      span.removeAttribute("data-cite");
    }
    this.marked = [];
    const numbers = new Map(); // block -> its citations' numbers
    state.citations.forEach((event, i) => {
      if (!numbers.has(event.block)) numbers.set(event.block, []);
      numbers.get(event.block).push(i + 1);
    });
    for (const [block, ns] of numbers) {
      const span = this.lane.lastToken(block);
      if (!span) continue;
      span.classList.add("cited");
      span.setAttribute("data-cite", ns.join(","));
      this.marked.push(span);
    }
  }

  _item(n, event, view) {
    const item = el("li", { class: "citation", "data-testid": "citation", dataset: { block: event.block ?? "", n, kind: view.kind } });
    item.appendChild(el("span", { class: "cite-n" }, `[${n}]`));
    for (const source of view.sources) {
      const one = el("span", { class: "cite-source" });
      if (source.title !== null) one.appendChild(el("span", { class: "cite-title", "data-testid": "citation-title" }, source.title));
      if (source.url !== null) one.appendChild(urlElement(source.url, { class: "cite-url", "data-testid": "citation-url" }));
      item.appendChild(one);
    }
    if (view.quote) item.appendChild(el("q", { class: "cite-quote" }, view.quote));
    if (view.span) item.appendChild(el("span", { class: "cite-span", "data-testid": "citation-span" }, `on “${view.span}”`));
    return item;
  }
}
