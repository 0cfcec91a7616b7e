// The transport bar and keyboard: play/pause, speed, seek, step, start/end, loop, toggles.

import { clockTime } from "../format.js";
import { SEEK_STEP_MS, SPEEDS, State } from "../player.js";

const FORM_FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

export class Transport {
  constructor(root, player, actions) {
    this.root = root;
    this.player = player;
    this.actions = actions; // {whitespace(on), colors(on), copyLink(), help(open)}
    this.q = (id) => root.querySelector(`[data-testid="${id}"]`);
    this.play = this.q("player-play");
    this.speed = this.q("player-speed");
    this.seek = this.q("player-seek");
    this.timeText = this.q("player-time");
    this.durationText = this.q("player-duration");
    this._bind();
    player.onChange(() => this.update());
  }

  _bind() {
    const p = this.player;
    const act = {
      start: () => p.toStart(),
      "step-back": () => p.stepBack(),
      play: () => p.toggle(),
      "step-forward": () => p.stepForward(),
      end: () => p.toEnd(),
      "go-live": () => p.follow(),
      "copy-link": () => this.actions.copyLink(),
      help: () => this.actions.help(true),
    };
    this.root.addEventListener("click", (event) => {
      const button = event.target.closest("[data-action]");
      if (button && act[button.dataset.action]) act[button.dataset.action]();
    });
    this.speed.addEventListener("change", () => p.setSpeed(parseSpeed(this.speed.value)));
    this.seek.addEventListener("input", () => p.seek(Number(this.seek.value)));
    this.root.addEventListener("change", (event) => {
      const option = event.target.dataset.option;
      if (option === "loop") p.loop = event.target.checked;
      if (option === "whitespace") this.actions.whitespace(event.target.checked);
      if (option === "colors") this.actions.colors(event.target.checked);
    });
    document.addEventListener("keydown", (event) => this._key(event));
  }

  _key(event) {
    const target = event.target;
    const inField = FORM_FIELDS.has(target.tagName) && target.type !== "range" && target.type !== "checkbox";
    if (inField || event.ctrlKey || event.metaKey || event.altKey) return;
    const p = this.player;
    const handlers = {
      " ": () => (target.tagName === "BUTTON" ? null : p.toggle()),
      ArrowLeft: () => (event.shiftKey ? p.seekBy(-SEEK_STEP_MS) : p.stepBack()),
      ArrowRight: () => (event.shiftKey ? p.seekBy(SEEK_STEP_MS) : p.stepForward()),
      Home: () => p.toStart(),
      End: () => p.toEnd(),
      "<": () => p.slower(),
      ">": () => p.faster(),
      "?": () => this.actions.help(true),
      Escape: () => this.actions.help(false),
      w: () => this.toggleOption("whitespace"),
    };
    const handler = handlers[event.key];
    if (!handler) return;
    if (event.key === " " && target.tagName === "BUTTON") return;
    event.preventDefault();
    handler();
  }

  toggleOption(name) {
    const box = this.root.querySelector(`[data-option="${name}"]`);
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /** The end, shown as the moment a link to it carries (the next whole ms: share.js). */
  setDuration(ms) {
    this.seek.max = String(Math.ceil(ms));
    this.durationText.textContent = clockTime(Math.ceil(ms));
  }

  /** Show a moment ({ms, decimals}: Player.moment()). */
  tick(moment) {
    this.seek.value = String(Math.round(moment.ms));
    this.timeText.textContent = clockTime(moment.ms, moment.decimals);
  }

  update() {
    const playing = this.player.state === State.PLAYING;
    this.play.setAttribute("aria-pressed", String(playing));
    this.play.setAttribute("aria-label", playing ? "Pause (Space)" : "Play (Space)");
    this.root.dataset.state = this.player.state;
    const live = this.root.querySelector('[data-testid="player-live"]');
    live.hidden = !this.player.live;
    live.setAttribute("aria-pressed", String(this.player.state === State.LIVE));
    const value = String(this.player.speed);
    if (this.speed.value !== value) this.speed.value = value;
    this.tick(this.player.moment());
  }
}

export function parseSpeed(value) {
  if (value === "max") return "max";
  const number = Number(value);
  return SPEEDS.includes(number) ? number : 1;
}
