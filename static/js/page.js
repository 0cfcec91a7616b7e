// The player page's wiring, shared by replays (main.js) and live runs (live.js): builds the
// timeline, player, renderer, views and controllers, and turns protocol messages
// (docs/protocol.md) into calls on them. Everything with logic lives in its own module.

import { Player, State } from "./player.js";
import { Renderer } from "./renderer.js";
import { ResumingConnection } from "./resume.js";
import { Selection } from "./selection.js";
import { readState } from "./share.js";
import { ShareLinks } from "./sharelink.js";
import { StatusLine } from "./status.js";
import { applyTheme } from "./theme.js";
import { Timeline } from "./timeline.js";
import { Chart, drawTicks } from "./views/chart.js";
import { Popover } from "./views/popover.js";
import { RawView } from "./views/raw.js";
import { Transport, parseSpeed } from "./views/transport.js";

const END_WORDS = { error: "ended with an error", cancelled: "was stopped", disconnected: "lost its connection" };

export function mountPlayer(root, { onMessage = () => {} } = {}) {
  const q = (id) => root.querySelector(`[data-testid="${id}"]`);
  const streamsRoot = q("streams");
  const wanted = readState(location.search);
  if (wanted.theme) applyTheme(wanted.theme);

  const status = new StatusLine(q("player-status"), q("player-alert"));
  const timeline = new Timeline();
  const renderer = new Renderer(streamsRoot, timeline, { glyphs: false });
  const screen = {
    moveTo: (cursor) => renderer.moveTo(cursor),
    tick() {
      transport.tick(player.moment());
      chart.draw(player.time());
    },
  };
  const player = new Player(timeline, screen);
  const popover = new Popover(q("token-popover"), timeline);
  const rawView = new RawView(q("raw-view"), {
    request: (stream, start, count) => link.send("raw_request", { stream, start, count }),
    onSelect: (stream, raw) => selection.highlightRaw(stream, raw),
  });
  const selection = new Selection(streamsRoot, { timeline, popover, rawView });
  const links = new ShareLinks(root, { player, selection, status });
  const chart = new Chart(q("timeline-chart"), { onSeek: (ms) => player.seek(ms) });
  const help = q("help-overlay");
  const transport = new Transport(root, player, {
    whitespace: (on) => renderer.setGlyphs(on),
    colors: (on) => streamsRoot.classList.toggle("no-colors", !on),
    copyLink: () => links.copy(),
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
    screen.tick();
  };

  let totalsDirty = false;
  function updateTotals() {
    if (!totalsDirty) return;
    totalsDirty = false;
    rawView.setTotals(timeline.streams.map((s) => s.raw.t.length));
    transport.setDuration(timeline.duration);
  }

  // Playing, or a jump with the transport, brings the raw view back to the playhead.
  let seen = { state: player.state, cursor: player.cursor };
  player.onChange(() => {
    updateTotals();
    root.dataset.state = player.state;
    const moved = player.cursor !== seen.cursor && player.state !== State.PLAYING && player.state !== State.LIVE;
    if ((player.state === State.PLAYING && seen.state !== State.PLAYING) || moved) rawView.resume();
    seen = { state: player.state, cursor: player.cursor };
    status.playerChanged(player);
  });

  function drawOverview() {
    const marks = timeline.chunkMarks(timeline.capture?.stall_ms ?? 250);
    chart.setMarks(marks, timeline.duration);
    drawTicks(root.querySelector(".seek .ticks"), marks, timeline.duration);
    transport.setDuration(timeline.duration);
  }

  // The probability legend and colour toggle only for captures with logprobs.
  const logprobsOnly = root.querySelectorAll("[data-logprobs-only]");
  function showLogprobsUi(events) {
    if (root.dataset.logprobs === "true" || !events.some((event) => event.kind === "logprobs")) return;
    root.dataset.logprobs = "true";
    for (const node of logprobsOnly) node.hidden = false;
  }

  /** How the recording ended, when it did not end well: a live run's end, or a stored one's. */
  function endProblem(message) {
    if (message.reason !== "complete") return message.reason === "done" ? null : { reason: message.reason, error: message.error };
    const ended = timeline.streams.map((s) => s.summary).find((s) => s && s.end_reason && s.end_reason !== "done");
    return ended ? { reason: ended.end_reason, error: ended.end_error } : null;
  }

  const handlers = {
    hello(message) {
      if (Number.isInteger(message.max_raw_request)) rawView.maxRequest = message.max_raw_request;
    },
    capture(message) {
      timeline.setCapture(message);
      for (const info of message.streams) renderer.addStream(info);
      rawView.setTotals(message.streams.map((s) => s.raw));
      root.dataset.live = message.live ? "true" : "false";
      if (message.live) {
        player.follow();
        status.start(player);
        status.say("Live: following the stream as it arrives.");
      } else {
        const streams = message.streams.length;
        status.say(`Loading ${message.format ?? "capture"}: ${streams} stream${streams === 1 ? "" : "s"}…`);
      }
      for (const d of message.diagnostics) status.say(`${d.severity}: ${d.message}`, d.severity);
    },
    raw_meta(message) {
      timeline.addRawMeta(message);
    },
    events(message) {
      if (message.raw) timeline.addRawRows(message.stream, message.raw);
      timeline.addEvents(message.stream, message.events);
      showLogprobsUi(message.events);
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
      status.say(message.message ?? message.state, message.state === "retrying" ? "warning" : "info");
    },
    end(message) {
      timeline.complete = true;
      drawOverview();
      player.dataArrived();
      renderer.refresh();
      root.dataset.loaded = "true";
      root.dataset.endReason = message.reason;
      const problem = endProblem(message);
      const kind = problem?.reason === "cancelled" ? "info" : "error";
      if (problem) {
        const words = `The recording ${END_WORDS[problem.reason] ?? `ended: ${problem.reason}`}`;
        status.alert(problem.error ?? `${words}.`, { prefix: problem.error ? `${words}: ` : "", kind });
        status.sayProblem(`Recording ended: ${problem.reason}${problem.error ? ": " : "."}`, problem.error ?? "", kind);
      } else if (message.reason === "complete") status.say(`Ready: ${timeline.length} events.`);
      else status.say(`Run finished: ${timeline.length} events.`);
      status.start(player);
      applyWantedState();
    },
    error(message) {
      status.alert(message, { prefix: "Error: " });
      status.sayProblem("Error: ", message);
      root.dataset.loaded = "error";
    },
  };

  function applyWantedState() {
    if (wanted.speed !== null) player.setSpeed(parseSpeed(wanted.speed));
    transport.update();
    if (wanted.t !== null) player.seek(wanted.t * 1000);
    if (wanted.token !== null) selection.restore(wanted);
    if (wanted.autoplay) player.play();
  }

  // ------------------------------------------------------------------ connection
  const link = new ResumingConnection(
    timeline,
    (message) => {
      handlers[message.type]?.(message);
      onMessage(message);
    },
    {
      say: (text, kind) => status.say(text, kind),
      failed(problem) {
        status.alert(problem, { prefix: "Connection: " });
        status.sayProblem("Connection: ", problem);
        root.dataset.connection = "failed";
      },
      state(name) {
        if (name) root.dataset.reconnecting = "true";
        else delete root.dataset.reconnecting;
      },
      reconnected() {
        delete root.dataset.reconnecting;
        root.dataset.reconnects = String(Number(root.dataset.reconnects || 0) + 1);
        status.say("Reconnected: picking up where the connection dropped.");
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
    status.reset();
    delete root.dataset.connection;
    delete root.dataset.logprobs;
    for (const node of logprobsOnly) node.hidden = true;
    link.start(message);
  }

  const api = { player, timeline, renderer, selection, links, status, connect, say: (text, kind) => status.say(text, kind), send: (type, fields) => link.send(type, fields) };
  window.streamscope = api;
  return api;
}
