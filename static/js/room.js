// A presenter room's page (docs/teaching.md). Everyone in the room plays the same capture;
// the presenter's page (its link carries the key) sends its state whenever it changes (play,
// pause, seek, step, speed, the selected token and tool call, the theme, the text size), and every viewer's
// page is brought to each state it is sent. A late joiner gets the current state with the
// capture; a viewer may explore alone (any use of the transport does it too) and follow the
// presenter again with one click.

import { State } from "./player.js";
import { actionFor, stateOf, Throttle } from "./roomstate.js";
import { applyTheme, currentTheme } from "./theme.js";
import { apiMarkers } from "./views/markers.js";
import { applyZoom } from "./zoom.js";

const TRANSPORT_KEYS = new Set([" ", "ArrowLeft", "ArrowRight", "Home", "End", "<", ">", "[", "]"]); // "[", "]": markers
const FORM_FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
// What in the transport moves the player (a viewer touching it explores alone); not the view
// options, the link or the help.
const MOVES = '[data-action], [data-testid="player-seek"], [data-testid="player-speed"], [data-testid="player-loop"]';
const NOT_MOVES = '[data-action="copy-link"], [data-action="help"]';
const MARKER = "button[data-marker-id]"; // a chart flag or a chapter: jumps to its marker

/** The tool call a card shows, as a room names it (or null for an element that is none). */
export function toolRef(card) {
  const choice = card?.closest('[data-testid="choice"]');
  if (!choice) return null;
  const ref = { stream: Number(choice.dataset.stream), choice: Number(choice.dataset.choice) };
  if (card.dataset.call !== undefined) return { ...ref, call: Number(card.dataset.call) };
  if (card.dataset.block !== undefined) return { ...ref, block: Number(card.dataset.block) };
  return null;
}

export class Room {
  constructor(root, bar, page, { room, key }) {
    this.root = root;
    this.bar = bar;
    this.page = page; // mountPlayer's api: player, timeline, renderer, selection, send, say
    this.id = room;
    this.key = key;
    this.role = null;
    this.following = true;
    this.loaded = false;
    this.latest = null; // the newest state known: {seq, state}
    this.sent = null; // the last state this presenter sent
    this.tool = null; // the selected tool call
    this.tokenOpen = false;
    this.hint = null; // "step" when the transport just stepped
    this.applying = false;
    this.streams = root.querySelector('[data-testid="streams"]');
    this.q = (id) => bar.querySelector(`[data-testid="${id}"]`);
    this.throttle = new Throttle(({ action, state }) => page.send("present", { key: this.key, action, state }));
    this._bind();
  }

  /** A server message (after the page's own handling of it). */
  message(message) {
    if (message.type === "room") this._joined(message);
    else if (message.type === "mirror") this._mirrored(message);
    else if (message.type === "end") this._loaded();
  }

  _joined(message) {
    this.role = message.presenter ? "presenter" : "viewer";
    this.bar.dataset.role = this.role;
    this._know(message.seq, message.state);
    const link = this.q("room-viewer-link");
    link.href = message.viewer_url;
    link.textContent = new URL(message.viewer_url, location.href).href;
    this.q("room-share").hidden = this.role !== "presenter";
    // A stored capture's markers show in its rooms (read only: the room has no delete token).
    if (message.source?.capture && !this.page.markers.source) this.page.markers.useSource(apiMarkers(message.source.capture, null));
    this._show();
    if (this.key && !message.presenter) this.page.say("The key in this link does not present this room: you are watching it.", "warning");
    if (!this.loaded) return;
    if (this.role === "viewer" && this.following) this._apply(); // back after a dropped connection
    if (this.role === "presenter") this._changed(); // ...and what changed meanwhile goes out
  }

  _know(seq, state) {
    if (state && (!this.latest || seq > this.latest.seq)) this.latest = { seq, state };
  }

  _mirrored(message) {
    const newer = !this.latest || message.seq > this.latest.seq;
    this._know(message.seq, message.state);
    this.root.dataset.roomSeq = String(message.seq);
    if (newer && this.role === "viewer" && this.following && this.loaded) this._apply();
  }

  _loaded() {
    if (this.loaded) return;
    this.loaded = true;
    this._apply(); // land where the room is (a presenter who reopens the link too)
    if (this.role === "presenter") this.sent = this._state();
  }

  // ------------------------------------------------------------------ following
  _apply() {
    const latest = this.latest;
    if (!latest) {
      this.root.dataset.roomApplied = "0";
      return;
    }
    const { player, timeline } = this.page;
    const state = latest.state;
    this.applying = true;
    try {
      applyTheme(state.theme);
      const themeSwitch = document.querySelector('[data-testid="theme-switch"]');
      if (themeSwitch) themeSwitch.value = state.theme ?? "auto";
      applyZoom(String(state.zoom));
      const zoomSwitch = this.root.querySelector('[data-testid="player-zoom"]');
      if (zoomSwitch) zoomSwitch.value = String(state.zoom);
      if (player.speed !== state.speed) player.setSpeed(state.speed);
      if (state.playing && state.t < timeline.duration) {
        player.seek(state.t);
        player.play();
      } else if (state.playing || state.cursor === null) {
        player.pause();
        player.seek(state.t);
      } else player.setCursor(Math.min(state.cursor, timeline.length), state.t); // the presenter's time, also mid-stall
    } finally {
      this.applying = false;
    }
    this._settled(() => {
      this.applying = true;
      try {
        this._showToken(state.token);
        this._showTool(state.tool);
      } finally {
        this.applying = false;
      }
      this.root.dataset.roomApplied = String(latest.seq);
    });
  }

  /** After a big jump the renderer catches up over several frames: tokens and cards are
   * selected once they are on the screen. */
  _settled(then) {
    if (this.page.renderer.busy) requestAnimationFrame(() => this._settled(then));
    else then();
  }

  _showToken(token) {
    const selection = this.page.selection;
    this.tokenOpen = Boolean(token);
    if (token) {
      selection.restore(token);
      return;
    }
    selection.span?.classList.remove("selected");
    selection.span = null;
    selection.popover.hide();
  }

  _showTool(ref) {
    this.tool = ref;
    for (const card of this.streams.querySelectorAll('[data-testid="tool-call"].selected')) {
      card.classList.remove("selected");
      card.removeAttribute("aria-current");
    }
    if (!ref) return;
    const which = ref.call !== undefined ? `[data-call="${ref.call}"]` : `[data-block="${ref.block}"]`;
    const card = this.streams.querySelector(`[data-testid="choice"][data-stream="${ref.stream}"][data-choice="${ref.choice}"] [data-testid="tool-call"]${which}`);
    if (!card) return;
    card.classList.add("selected");
    card.setAttribute("aria-current", "true");
    card.scrollIntoView({ block: "nearest" });
  }

  detach() {
    if (this.role !== "viewer" || !this.following) return;
    this.following = false;
    this._show();
  }

  rejoin() {
    this.following = true;
    this._show();
    if (this.loaded) this._apply();
  }

  _show() {
    const viewer = this.role === "viewer";
    this.bar.dataset.following = String(this.following);
    this.q("room-detach").hidden = !(viewer && this.following);
    this.q("room-rejoin").hidden = !(viewer && !this.following);
    const role = this.q("room-role");
    if (this.role === "presenter") role.textContent = "You are presenting: everyone with the viewer link follows your player, the token and tool call you select, and your theme.";
    else if (this.following) role.textContent = "Following the presenter.";
    else role.textContent = "Exploring alone: the presenter's moves wait until you follow again.";
  }

  // ------------------------------------------------------------------ presenting
  _state() {
    const ref = this.tokenOpen ? this.page.selection.ref() : null;
    const token = ref && ref.token >= 0 ? ref : null;
    const zoom = Number(document.documentElement.dataset.zoom ?? "1");
    return stateOf(this.page.player, { token, tool: this.tool, theme: currentTheme(), zoom });
  }

  _changed() {
    if (this.role !== "presenter" || !this.loaded || this.applying) return;
    if (this.page.player.state === State.LOADING) return;
    const state = this._state();
    const action = actionFor(this.sent, state, this.hint);
    this.hint = null;
    if (!action) return;
    this.sent = state;
    this.throttle.push({ action, state });
  }

  _bind() {
    const { player } = this.page;
    player.onChange(() => this._changed());
    this.streams.addEventListener("click", (event) => {
      if (this.role === "viewer" && this.following) return;
      if (event.target.closest(".tok")) {
        this.tokenOpen = true; // the selection (selection.js) has taken the click already
      } else {
        const ref = toolRef(event.target.closest('[data-testid="tool-call"]'));
        if (!ref) return;
        this._showTool(JSON.stringify(ref) === JSON.stringify(this.tool) ? null : ref);
      }
      this._changed();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      this._showToken(null);
      this._changed();
    });
    new MutationObserver(() => this._changed()).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme", "data-zoom"] });
    // A step is sent as one (a seek otherwise); a viewer who touches the transport explores alone.
    this.root.addEventListener(
      "click",
      (event) => {
        const action = event.target.closest("[data-action]")?.dataset.action;
        if (action === "step-back" || action === "step-forward") this.hint = "step";
      },
      true,
    );
    const alone = (event) => {
      if (event.isTrusted && this.role === "viewer" && this.following) this.detach();
    };
    this.root.querySelector(".transport").addEventListener(
      "pointerdown",
      (event) => {
        if (event.target.closest(MOVES) && !event.target.closest(NOT_MOVES)) alone(event);
      },
      true,
    );
    this.root.querySelector('[data-testid="timeline-chart"]').addEventListener("pointerdown", alone, true);
    this.root.addEventListener(
      "click",
      (event) => {
        if (event.target.closest(MARKER)) alone(event); // by pointer or by keyboard
      },
      true,
    );
    document.addEventListener(
      "keydown",
      (event) => {
        if (FORM_FIELDS.has(event.target.tagName) && event.target.type !== "range" && event.target.type !== "checkbox") return;
        if (!TRANSPORT_KEYS.has(event.key) || event.ctrlKey || event.metaKey || event.altKey) return;
        if ((event.key === "ArrowLeft" || event.key === "ArrowRight") && !event.shiftKey) this.hint = "step";
        alone(event);
      },
      true,
    );
    this.q("room-detach").addEventListener("click", () => this.detach());
    this.q("room-rejoin").addEventListener("click", () => this.rejoin());
    this.q("room-copy").addEventListener("click", () => {
      const url = this.q("room-viewer-link").href;
      const done = () => this.page.say(`Viewer link copied: ${url}`);
      if (navigator.clipboard?.writeText) navigator.clipboard.writeText(url).then(done, () => this.page.say(`Copy this link: ${url}`));
      else this.page.say(`Copy this link: ${url}`);
    });
  }
}
