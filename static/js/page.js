// The player page's wiring, shared by replays (main.js) and live runs (live.js): builds the
// timeline, player, renderer and views, and turns protocol messages into calls on them.
// Everything with logic lives in its own module; this file only connects them.

import { Player, State } from "./player.js";
import { Renderer } from "./renderer.js";
import { ResumingConnection } from "./resume.js";
import { readState, shareUrl } from "./share.js";
import { Timeline } from "./timeline.js";
import { Chart, drawTicks } from "./views/chart.js";
import { Popover } from "./views/popover.js";
import { RawView } from "./views/raw.js";
import { tokenG, tokensOfEvents } from "./views/text.js";
import { Transport, parseSpeed } from "./views/transport.js";

export function mountPlayer(root, { onMessage = () => {} } = {}) {
  const status = root.querySelector('[data-testid="player-status"]');
  const streamsRoot = root.querySelector('[data-testid="streams"]');
  const wanted = readState(location.search);
  if (wanted.theme) document.documentElement.dataset.theme = wanted.theme;

  const timeline = new Timeline();
  const renderer = new Renderer(streamsRoot, timeline, { glyphs: false });
  let transport = null;
  let chart = null;
  const screen = {
    moveTo: (cursor) => renderer.moveTo(cursor),
    tick(time) {
      transport.tick(time);
      chart.draw(time);
    },
  };
  const player = new Player(timeline, screen);
  const popover = new Popover(root.querySelector('[data-testid="token-popover"]'), timeline);
  const rawView = new RawView(root.querySelector('[data-testid="raw-view"]'), {
    request: (stream, start, count) => link.send("raw_request", { stream, start, count }),
    onSelect: (stream, raw) => highlightRaw(stream, raw),
  });
  chart = new Chart(root.querySelector('[data-testid="timeline-chart"]'), { onSeek: (ms) => player.seek(ms) });
  const help = root.querySelector('[data-testid="help-overlay"]');
  transport = new Transport(root, player, {
    whitespace: (on) => renderer.setGlyphs(on),
    colors: (on) => streamsRoot.classList.toggle("no-colors", !on),
    copyLink: () => copyLink(),
    help: (open) => (help.hidden = !open),
  });
  root.querySelector('[data-action="help-close"]').addEventListener("click", () => (help.hidden = true));

  const followRaw = () => {
    let last = renderer.rendered - 1;
    while (last >= 0 && timeline.events[last].raw < 0) last--;
    const event = timeline.events[last];
    rawView.follow(event ? event.stream : 0, event ? event.raw : null, { immediate: player.state !== State.PLAYING });
  };
  renderer.onSettled = () => {
    // While a run streams, the raw view stays where it is (it catches up at the end): moving
    // its window costs a raw_request and two rebuilds of its list per token.
    if (player.state !== State.LIVE || timeline.complete) followRaw();
    screen.tick(player.time());
  };

  function say(text, kind = "info") {
    status.textContent = text;
    status.dataset.kind = kind;
  }

  let totalsDirty = false;
  function updateTotals() {
    if (!totalsDirty) return;
    totalsDirty = false;
    rawView.setTotals(timeline.streams.map((s) => s.raw.t.length));
    transport.setDuration(timeline.duration);
  }

  player.onChange(() => {
    updateTotals();
    root.dataset.state = player.state;
    if (player.state === State.ENDED) say("Played to the end.");
  });

  function drawOverview() {
    const marks = timeline.chunkMarks(timeline.capture?.stall_ms ?? 250);
    chart.setMarks(marks, timeline.duration);
    drawTicks(root.querySelector(".seek .ticks"), marks, timeline.duration);
    transport.setDuration(timeline.duration);
  }

  const handlers = {
    hello() {},
    capture(message) {
      timeline.setCapture(message);
      for (const info of message.streams) renderer.addStream(info);
      rawView.setTotals(message.streams.map((s) => s.raw));
      root.dataset.live = message.live ? "true" : "false";
      if (message.live) {
        player.follow();
        say("Live: following the stream as it arrives.");
      } else {
        const streams = message.streams.length;
        say(`Loading ${message.format ?? "capture"}: ${streams} stream${streams === 1 ? "" : "s"}…`);
      }
      for (const d of message.diagnostics) say(`${d.severity}: ${d.message}`, d.severity);
    },
    raw_meta(message) {
      timeline.addRawMeta(message);
    },
    events(message) {
      if (message.raw) timeline.addRawRows(message.stream, message.raw);
      timeline.addEvents(message.stream, message.events);
      if (message.raw) totalsDirty = true;
      if (player.state !== State.LIVE) updateTotals();
      player.dataArrived();
    },
    summary(message) {
      timeline.setSummary(message);
      renderer.view(message.stream)?.setSummary(message);
    },
    raw(message) {
      rawView.received(message);
    },
    status(message) {
      say(message.message ?? message.state, message.state === "retrying" ? "warning" : "info");
    },
    end(message) {
      timeline.complete = true;
      drawOverview();
      player.dataArrived();
      renderer.refresh();
      root.dataset.loaded = "true";
      if (message.reason === "complete") say(`Ready: ${timeline.length} events.`);
      else say(`Recording ended: ${message.reason}${message.error ? `: ${message.error}` : ""}`, message.reason === "done" ? "info" : "error");
      root.dataset.endReason = message.reason;
      applyWantedState();
    },
    error(message) {
      say(`Error: ${message.message}`, "error");
      root.dataset.loaded = "error";
    },
  };

  function applyWantedState() {
    if (wanted.speed !== null) player.setSpeed(parseSpeed(wanted.speed));
    transport.update();
    if (wanted.t !== null) player.seek(wanted.t * 1000);
    if (wanted.token !== null) selectToken(wanted.choice ?? 0, wanted.token);
    if (wanted.autoplay) player.play();
  }

  function tokensOf(choice) {
    return [...streamsRoot.querySelectorAll(`.choice-text[data-choice="${choice}"] .tok`)];
  }

  function selectToken(choice, index) {
    const span = tokensOf(choice)[index];
    if (span) select(span);
  }

  let selected = null;
  function select(span) {
    selected?.classList.remove("selected");
    selected = span;
    span.classList.add("selected");
    span.tabIndex = -1;
    span.focus({ preventScroll: true });
    popover.show(span);
    const event = timeline.events[tokenG(span)];
    rawView.select(event.stream, event.raw);
  }

  function highlightRaw(stream, raw) {
    for (const span of streamsRoot.querySelectorAll(".tok.raw-hit")) span.classList.remove("raw-hit");
    // The chunk's events are found in the timeline, their token elements by g.
    const gs = timeline.stream(stream).events.filter((e) => e.raw === raw).map((e) => e.g);
    const streamRoot = streamsRoot.querySelector(`.stream[data-stream="${stream}"]`);
    const spans = streamRoot ? tokensOfEvents(streamRoot, gs) : [];
    spans.forEach((span) => span.classList.add("raw-hit"));
    rawView.select(stream, raw);
    spans[0]?.scrollIntoView({ block: "nearest" });
  }

  streamsRoot.addEventListener("pointerover", (event) => {
    const span = event.target.closest(".tok.lp");
    if (span) popover.show(span);
  });
  streamsRoot.addEventListener("pointerout", (event) => {
    const span = event.target.closest(".tok.lp");
    if (span && span !== selected && !span.contains(event.relatedTarget)) popover.hide();
  });
  streamsRoot.addEventListener("focusin", (event) => {
    const span = event.target.closest(".tok.lp");
    if (span) popover.show(span);
  });
  streamsRoot.addEventListener("click", (event) => {
    const span = event.target.closest(".tok");
    if (span) select(span);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") popover.hide();
  });

  function copyLink(base = location.href) {
    const choice = selected ? Number(selected.closest(".choice-text").dataset.choice) : null;
    const token = selected ? tokensOf(choice).indexOf(selected) : null;
    const url = shareUrl(root.dataset.shareUrl ? new URL(root.dataset.shareUrl, location.href).href : base, { t: player.time() / 1000, speed: player.speed, choice, token });
    root.dataset.copied = url;
    const done = () => say(`Link copied: ${url}`);
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(url).then(done, () => say(`Copy this link: ${url}`));
    else say(`Copy this link: ${url}`);
  }

  // ------------------------------------------------------------------ connection
  const link = new ResumingConnection(
    timeline,
    (message) => {
      handlers[message.type]?.(message);
      onMessage(message);
    },
    {
      say,
      state(name) {
        if (name) root.dataset.reconnecting = "true";
        else delete root.dataset.reconnecting;
      },
      reconnected() {
        delete root.dataset.reconnecting;
        root.dataset.reconnects = String(Number(root.dataset.reconnects || 0) + 1);
        say("Reconnected: picking up where the connection dropped.");
      },
    },
  );

  function connect(message) {
    if (timeline.capture) {
      timeline.reset();
      renderer.reset();
      rawView.reset();
      player.reset();
      delete root.dataset.loaded;
    }
    link.start(message);
  }

  const api = { player, timeline, renderer, connect, say, send: (type, fields) => link.send(type, fields) };
  window.streamscope = api;
  return api;
}
