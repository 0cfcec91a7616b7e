// The findings panel (docs/protocol.md, `findings`): one item per finding, the most recent
// list of each stream (a live run's grows as it streams), each with its severity, title,
// message and where it is seen, a link to its rule's entry (/rules#<id>) and a link that opens
// the page with it selected (`?finding=<rule>`); a mark per finding on the seek bar and on the
// chart (data-kind="finding"). Selecting one (its button, Enter or Space; or a mark) seeks to
// its raw event and selects that event in the raw view. Capture text reaches the page only as
// text (dom.js).

import { clear, el } from "../dom.js";
import { clockTime } from "../format.js";
import { FindingsState, countWords, docLink, findingTime, findingUrl, wantedFinding } from "../findings.js";

export class FindingsView {
  /** `selectRaw(stream, raw)`: select a raw event in the raw view (selection.highlightRaw). */
  constructor(root, { player, timeline, status, selectRaw }) {
    this.root = root;
    this.panel = root.querySelector('[data-testid="findings"]');
    this.list = this.panel.querySelector(".findings-list");
    this.countsNode = this.panel.querySelector('[data-testid="findings-counts"]');
    this.none = this.panel.querySelector(".findings-none");
    this.player = player;
    this.timeline = timeline;
    this.status = status;
    this.selectRaw = selectRaw;
    this.state = new FindingsState();
    this.wanted = wantedFinding(location.search);
    this.current = null; // the selected finding's key
    this.seekLayer = el("div", { class: "marker-layer finding-layer seek-findings", "aria-hidden": "true" });
    root.querySelector(".seek-track").appendChild(this.seekLayer);
    this.chartLayer = el("div", { class: "marker-layer finding-layer chart-findings", "aria-hidden": "true" });
    root.querySelector(".chart-box").appendChild(this.chartLayer);
    const clicked = (event) => {
      const node = event.target.closest("[data-finding]");
      const finding = node && this.state.all().find((f) => f.key === node.dataset.finding);
      if (finding) this.select(finding);
    };
    this.list.addEventListener("click", (event) => event.target.closest("button[data-finding]") && clicked(event));
    this.chartLayer.addEventListener("click", clicked);
  }

  reset() {
    this.state.reset();
    this.current = null;
    this.applied = false;
    this.panel.hidden = true;
    delete this.panel.dataset.final;
    this._render();
  }

  /** A `findings` message. */
  received(message) {
    this.state.received(message);
    this.panel.hidden = false;
    const streams = this.timeline.streams.length || 1;
    const finals = [...this.state.final.values()].filter(Boolean).length;
    this.panel.dataset.final = finals >= streams ? "true" : "false";
    this._render();
  }

  /** The timeline is complete: place the marks on its whole length, and select the link's
   * finding (`?finding=`). */
  timelineComplete() {
    this._render();
    if (this.wanted && !this.applied) {
      this.applied = true;
      const finding = this.state.ofRule(this.wanted);
      if (finding) this.select(finding);
      else this.status.say(`No finding “${this.wanted}” in this capture.`, "warning");
    }
    this.panel.dataset.ready = "true";
  }

  /** Seek to the finding's event and select it in the raw view. */
  select(finding) {
    this.current = finding.key;
    this.player.pause();
    this.player.seek(findingTime(finding, this.timeline));
    if (Number.isInteger(finding.raw) && finding.raw >= 0) this.selectRaw(finding.stream, finding.raw);
    this._mark();
    this.status.say(`Finding: ${finding.title} (${finding.severity}): ${finding.message}`);
  }

  _mark() {
    for (const node of this.root.querySelectorAll("[data-finding]")) {
      if (node.dataset.finding === this.current) node.setAttribute("aria-current", "true");
      else node.removeAttribute("aria-current");
    }
  }

  _render() {
    for (const node of [this.seekLayer, this.chartLayer, this.list]) clear(node);
    const findings = this.state.all();
    this.countsNode.textContent = `(${countWords(this.state.counts())})`;
    this.none.hidden = findings.length > 0;
    const duration = this.timeline.duration;
    const several = this.timeline.streams.length > 1;
    for (const finding of findings) {
      const time = findingTime(finding, this.timeline);
      const left = duration > 0 ? `${Math.min(100, (time / duration) * 100)}%` : "0%";
      const attrs = { "data-testid": "finding-marker", dataset: { kind: "finding", finding: finding.key, rule: finding.rule, severity: finding.severity }, title: `${finding.severity}: ${finding.title}` };
      const tick = el("span", { class: `finding-tick ${finding.severity}`, ...attrs });
      tick.style.left = left;
      this.seekLayer.appendChild(tick);
      const flag = el("span", { class: `finding-flag ${finding.severity}`, ...attrs });
      flag.style.left = left;
      this.chartLayer.appendChild(flag);
      this.list.appendChild(this._item(finding, time, several));
    }
    this._mark();
  }

  _where(finding, time, several) {
    const parts = several ? [`stream ${finding.stream + 1}`] : [];
    if (Number.isInteger(finding.raw)) {
      parts.push(`raw event ${finding.raw + 1}`);
      if (Number.isInteger(finding.line)) parts.push(`line ${finding.line}`);
      parts.push(clockTime(time));
    } else parts.push("the whole stream");
    if (finding.count > 1) parts.push(`${finding.count} times`);
    return parts.join(", ");
  }

  _item(finding, time, several) {
    const item = el("li", { class: `finding ${finding.severity}`, "data-testid": "finding", dataset: { rule: finding.rule, severity: finding.severity, stream: finding.stream, raw: finding.raw ?? "", finding: finding.key } });
    const jump = el("button", { type: "button", class: "finding-jump", "data-testid": "finding-select", dataset: { finding: finding.key } });
    jump.append(
      el("span", { class: `severity ${finding.severity}`, "data-testid": "finding-severity" }, finding.severity),
      el("span", { class: "finding-title", "data-testid": "finding-title" }, finding.title),
      el("span", { class: "finding-where" }, this._where(finding, time, several)),
    );
    item.appendChild(jump);
    item.appendChild(el("p", { class: "finding-message", "data-testid": "finding-message" }, finding.message));
    const links = el("p", { class: "finding-links" });
    // The catalogue is the server's page: an exported player opened from a file has none.
    const doc = location.protocol.startsWith("http") ? docLink(finding) : null;
    if (doc) links.appendChild(el("a", { href: doc, "data-testid": "finding-doc", "aria-label": `About the rule ${finding.rule}` }, `rule ${finding.rule}`));
    links.appendChild(el("a", { href: findingUrl(location.href, finding.rule), "data-testid": "finding-link", "aria-label": `Link to the finding ${finding.title}` }, "link"));
    item.appendChild(links);
    return item;
  }
}
