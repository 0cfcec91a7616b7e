// The compare page (/compare/<a>/<b>, docs/teaching.md): two outputs played on one clock with
// one transport (pair.js). Each side opens its source over its own websocket, as a player page
// does, and keeps only the stream and output it compares; the diff, tool calls and metrics
// below the players are the server's (app/domain/compare.py).

import { kept, PairedPlayer, shiftsFor } from "./pair.js";
import { State } from "./player.js";
import { ResumingConnection } from "./resume.js";
import { Renderer } from "./renderer.js";
import { Selection } from "./selection.js";
import { readState, shareUrl } from "./share.js";
import { StatusLine } from "./status.js";
import { applyTheme, currentTheme } from "./theme.js";
import { Timeline } from "./timeline.js";
import { Popover } from "./views/popover.js";
import { parseSpeed, Transport } from "./views/transport.js";
import { bindZoom } from "./zoom.js";
import { helpDialog } from "./helpdialog.js";
import { counts } from "./messages.js";

const root = document.getElementById("compare");
const q = (id) => root.querySelector(`[data-testid="${id}"]`);
const wanted = readState(location.search);
if (wanted.theme) applyTheme(wanted.theme);
bindZoom(q("player-zoom"), location.search); // the text size, for a projector (docs/teaching.md)
const status = new StatusLine(q("player-status"), q("player-alert"));
const popoverRoot = q("token-popover");
const NO_RAW_VIEW = { select() {} };

class Side {
  constructor(section, onDone) {
    this.section = section;
    this.name = section.dataset.side;
    this.stream = Number(section.dataset.stream);
    this.choice = Number(section.dataset.choice);
    this.source = section.dataset.demo ? { demo: section.dataset.demo } : { capture: section.dataset.capture };
    this.status = section.querySelector('[data-testid="compare-side-status"]');
    this.streamsRoot = section.querySelector(".streams");
    this.timeline = new Timeline();
    this.renderer = new Renderer(this.streamsRoot, this.timeline, { glyphs: false });
    this.selection = new Selection(this.streamsRoot, { timeline: this.timeline, popover: new Popover(popoverRoot, this.timeline), rawView: NO_RAW_VIEW });
    this.onDone = onDone;
    this.link = new ResumingConnection(this.timeline, (message) => this.handle(message), {
      say: (text) => (this.status.textContent = text),
      failed: (problem) => status.alert(problem, { prefix: `Side ${this.name.toUpperCase()}: ` }),
      state() {},
      reconnected: () => (this.status.textContent = "Reconnected."),
    });
  }

  open() {
    this.link.start({ type: "open", source: this.source });
  }

  handle(message) {
    const mine = message.stream === this.stream;
    switch (message.type) {
      case "capture": {
        this.timeline.setCapture(message);
        const info = message.streams[this.stream];
        if (info) this.renderer.addStream(info);
        this.status.textContent = "Loading…";
        break;
      }
      case "raw_meta":
        if (mine) this.timeline.addRawMeta(message);
        break;
      case "events": {
        const events = mine ? message.events.filter((event) => kept(event, this.choice)) : [];
        if (events.length) this.timeline.addEvents(this.stream, events);
        break;
      }
      case "summary":
        if (mine) this.renderer.view(this.stream)?.setSummary(message);
        break;
      case "end":
        this.timeline.complete = true;
        this.renderer.refresh();
        this.status.textContent = `${this.timeline.length} events.`;
        this.section.dataset.loaded = "true";
        this.onDone();
        break;
      case "error":
        status.alert(message, { prefix: `Side ${this.name.toUpperCase()}: ` });
        this.status.textContent = `Error: ${message.message}`;
        this.section.dataset.loaded = "error";
        break;
      default:
    }
  }
}

const sides = [...root.querySelectorAll('[data-testid="compare-side"]')].map((section) => new Side(section, loaded));
const pair = new PairedPlayer(sides, { tick: () => transport.tick(pair.moment()) });
const transport = new Transport(root, pair, {
  whitespace: (on) => sides.forEach((side) => side.renderer.setGlyphs(on)),
  colors: (on) => sides.forEach((side) => side.streamsRoot.classList.toggle("no-colors", !on)),
  copyLink: copyLink,
  help: (open) => showHelp(open),
});
const showHelp = helpDialog(q("help-overlay")); // takes focus, keeps Tab inside, gives it back
pair.onChange(() => {
  root.dataset.state = pair.state;
  status.playerChanged(pair);
});

function align(name) {
  root.dataset.align = name;
  const shifts = shiftsFor(sides.map((side) => side.timeline), name);
  pair.setShifts(shifts);
  transport.setDuration(pair.duration);
  sides.forEach((side, i) => {
    const offset = side.section.querySelector('[data-testid="compare-offset"]');
    offset.textContent = name === "first-token" ? `aligned at the first token (shifted ${Math.round(shifts[i])} ms)` : "aligned at the request start";
    side.section.dataset.shift = String(shifts[i]);
  });
}

function loaded() {
  if (!sides.every((side) => side.timeline.complete)) return;
  align(root.dataset.align);
  pair.dataArrived();
  if (wanted.speed !== null) pair.setSpeed(parseSpeed(wanted.speed));
  if (wanted.t !== null) pair.seek(wanted.t * 1000);
  transport.update();
  status.say(`Ready: ${sides.map((side) => `${side.name.toUpperCase()} ${counts(side.timeline)}`).join("; ")}.`);
  status.start(pair);
  root.dataset.loaded = "true";
  if (wanted.autoplay) pair.play();
}

q("compare-align").addEventListener("change", (event) => {
  const url = new URL(location.href);
  url.searchParams.set("align", event.target.value);
  history.replaceState(history.state, "", url);
  if (root.dataset.loaded === "true") {
    align(event.target.value);
    transport.update();
  } else root.dataset.align = event.target.value;
});

function copyLink() {
  const url = new URL(shareUrl(location.href, { t: pair.moment().seconds, speed: pair.speed, choice: null, token: null, theme: currentTheme() }));
  url.searchParams.set("align", root.dataset.align);
  root.dataset.copied = url.href;
  const say = (text) => status.say(text);
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(url.href).then(() => say(`Link copied: ${url.href}`), () => say(`Copy this link: ${url.href}`));
  else say(`Copy this link: ${url.href}`);
}

window.streamscope = { pair, sides, transport, State };
sides.forEach((side) => side.open());
