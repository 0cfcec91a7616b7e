// Markers on the page (docs/teaching.md, "Markers"): a mark per marker on the seek bar and on
// the timeline chart (data-testid="marker", data-kind auto or user), the chapter list with a
// link to each (`?m=`), `[` and `]` to jump between them, and for the capture's owner a form to
// add one at the current moment and a button to remove each of theirs. Labels and notes reach
// the page only as text.

import { clear, el } from "../dom.js";
import { clockTime } from "../format.js";
import { autoMarkers, byTime, markerUrl, nextMarker, placeUserMarker, previousMarker } from "../markers.js";

const FORM_FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

export class MarkersView {
  /** `source`: {load() -> Promise<stored markers>, owner, add(fields), remove(id)} (or none). */
  constructor(root, { player, timeline, status }) {
    this.root = root;
    this.player = player;
    this.timeline = timeline;
    this.status = status;
    this.source = null;
    this.stored = [];
    this.markers = [];
    this.list = root.querySelector('[data-testid="marker-list"]');
    this.items = this.list.querySelector("ol");
    this.form = root.querySelector('[data-testid="marker-form"]');
    this.seekLayer = el("div", { class: "marker-layer seek-markers", "aria-hidden": "true" });
    root.querySelector(".seek-track").appendChild(this.seekLayer);
    this.chartLayer = el("div", { class: "marker-layer chart-markers" });
    root.querySelector(".chart-box").appendChild(this.chartLayer);
    document.addEventListener("keydown", (event) => this._key(event));
    this.chartLayer.addEventListener("click", (event) => this._clicked(event));
    this.items.addEventListener("click", (event) => this._clicked(event));
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this._add();
    });
  }

  /** Where the capture's stored markers come from (a stored capture, an export). */
  useSource(source) {
    this.source = source;
    this.form.hidden = !source?.owner;
    this.root.dataset.markerOwner = source?.owner ? "true" : "false";
  }

  reset() {
    this.markers = [];
    this.ready = false;
    this._render();
  }

  /** The timeline is complete: show its markers, then open the link's marker (`?m=`). */
  async timelineComplete(wanted) {
    this.ready = true;
    this._place();
    try {
      this.stored = this.source ? await this.source.load() : [];
    } catch (error) {
      this.status.say(`Markers could not be loaded: ${error.message}`, "warning");
      this.stored = [];
    }
    this._place();
    if (wanted.m) {
      const marker = this.markers.find((m) => m.id === wanted.m);
      if (marker) this.jump(marker);
      else this.status.say(`No marker “${wanted.m}” in this capture.`, "warning");
    }
    this.root.dataset.markers = "ready";
  }

  _place() {
    if (!this.ready) return;
    const user = this.stored.map((m) => placeUserMarker(m, this.timeline)).filter(Boolean);
    this.markers = byTime([...autoMarkers(this.timeline), ...user]);
    this._render();
  }

  jump(marker) {
    this.player.pause();
    this.player.seek(marker.time);
    this.current = marker.id;
    for (const node of this.root.querySelectorAll("[data-marker-id]")) {
      if (node.dataset.markerId === marker.id) node.setAttribute("aria-current", "true");
      else node.removeAttribute("aria-current");
    }
    this.status.say(`Marker: ${marker.label} (${clockTime(marker.time)})`);
  }

  next() {
    const marker = nextMarker(this.markers, this.player.time());
    if (marker) this.jump(marker);
  }

  previous() {
    const marker = previousMarker(this.markers, this.player.time());
    if (marker) this.jump(marker);
  }

  _key(event) {
    const target = event.target;
    const inField = FORM_FIELDS.has(target.tagName) && target.type !== "range" && target.type !== "checkbox";
    if (inField || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key !== "[" && event.key !== "]") return;
    event.preventDefault();
    if (event.key === "]") this.next();
    else this.previous();
  }

  _clicked(event) {
    const remove = event.target.closest("[data-remove]");
    if (remove) {
      this._remove(remove.dataset.remove);
      return;
    }
    const button = event.target.closest("button[data-marker-id]");
    const marker = button && this.markers.find((m) => m.id === button.dataset.markerId);
    if (marker) this.jump(marker);
  }

  _render() {
    for (const node of [this.seekLayer, this.chartLayer, this.items]) clear(node);
    this.list.hidden = this.markers.length === 0;
    const duration = this.timeline.duration;
    for (const marker of this.markers) {
      const left = duration > 0 ? `${(marker.time / duration) * 100}%` : "0%";
      const attrs = { "data-testid": "marker", dataset: { kind: marker.kind, markerId: marker.id }, title: marker.label };
      const tick = el("span", { class: `marker-tick ${marker.kind}`, ...attrs });
      tick.style.left = left;
      this.seekLayer.appendChild(tick);
      const flag = el("button", { type: "button", class: `marker-flag ${marker.kind}`, ...attrs, "aria-label": `Marker: ${marker.label}` });
      flag.style.left = left;
      this.chartLayer.appendChild(flag);
      this.items.appendChild(this._item(marker));
    }
  }

  _item(marker) {
    const item = el("li", { class: `chapter ${marker.kind}`, "data-testid": "chapter", dataset: { kind: marker.kind, markerId: marker.id } });
    const jump = el("button", { type: "button", class: "chapter-jump", dataset: { markerId: marker.id } });
    jump.append(el("span", { class: "chapter-time" }, clockTime(marker.time)), el("span", { class: "chapter-label", "data-testid": "chapter-label" }, marker.label));
    item.appendChild(jump);
    item.appendChild(el("a", { class: "chapter-link", "data-testid": "marker-link", href: markerUrl(location.href, marker.id), "aria-label": `Link to the marker ${marker.label}` }, "link"));
    if (marker.kind === "user" && this.source?.owner) {
      item.appendChild(el("button", { type: "button", class: "btn small danger", "data-testid": "marker-delete", dataset: { remove: marker.id } }, "Remove"));
    }
    if (marker.note) item.appendChild(el("p", { class: "chapter-note", "data-testid": "marker-note" }, marker.note));
    return item;
  }

  async _add() {
    const data = new FormData(this.form);
    const fields = { t: Number(this.player.moment().seconds), label: String(data.get("label") ?? ""), note: String(data.get("note") ?? "") };
    try {
      const marker = await this.source.add(fields);
      this.stored.push(marker);
      this.form.reset();
      this._place();
      this.status.say(`Marker added: ${marker.label}`);
    } catch (error) {
      this.status.say(`Marker not added: ${error.message}`, "error");
    }
  }

  async _remove(id) {
    try {
      await this.source.remove(id);
      this.stored = this.stored.filter((m) => String(m.id) !== id);
      this._place();
      this.status.say("Marker removed.");
    } catch (error) {
      this.status.say(`Marker not removed: ${error.message}`, "error");
    }
  }
}

/** A stored capture's markers through the REST API; writing needs its delete token. */
export function apiMarkers(captureId, token) {
  const base = `/api/captures/${encodeURIComponent(captureId)}/markers`;
  const answer = async (response) => {
    if (response.ok) return response.status === 204 ? null : response.json();
    const body = await response.json().catch(() => null);
    throw new Error(body?.error?.message ?? `the server answered ${response.status}`);
  };
  const headers = { "Content-Type": "application/json", "X-Delete-Token": token ?? "" };
  return {
    owner: Boolean(token),
    load: async () => (await answer(await fetch(base))).markers,
    add: async (fields) => answer(await fetch(base, { method: "POST", headers, body: JSON.stringify(fields) })),
    remove: async (id) => answer(await fetch(`${base}/${encodeURIComponent(id)}`, { method: "DELETE", headers })),
  };
}
