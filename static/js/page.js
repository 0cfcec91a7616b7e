// The player page's wiring, shared by replays (main.js) and live runs (live.js): builds the
// timeline, player, renderer, views and controllers and connects them; the server's messages
// go to messages.js. Everything with logic lives in its own module.

import { PageMessages } from "./messages.js";
import { Player, State } from "./player.js";
import { Renderer } from "./renderer.js";
import { ResumingConnection } from "./resume.js";
import { Selection } from "./selection.js";
import { readState } from "./share.js";
import { ShareLinks } from "./sharelink.js";
import { StatusLine } from "./status.js";
import { applyTheme } from "./theme.js";
import { Timeline } from "./timeline.js";
import { Chart } from "./views/chart.js";
import { FindingsView } from "./views/findings.js";
import { MarkersView } from "./views/markers.js";
import { Popover } from "./views/popover.js";
import { RawView } from "./views/raw.js";
import { Transport } from "./views/transport.js";
import { bindZoom } from "./zoom.js";
import { helpDialog } from "./helpdialog.js";

/** `openLink(timeline, deliver, report)`: where the messages come from (the websocket, or an
 * exported player's own document: doclink.js). */
export function mountPlayer(root, { onMessage = () => {}, openLink = (...args) => new ResumingConnection(...args) } = {}) {
  const q = (id) => root.querySelector(`[data-testid="${id}"]`);
  const streamsRoot = q("streams");
  const wanted = readState(location.search);
  if (wanted.theme) applyTheme(wanted.theme);
  bindZoom(q("player-zoom"), location.search);

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
    help: (open) => showHelp(open),
  });
  // The help dialog takes focus, keeps Tab inside, and gives focus back (helpdialog.js).
  const showHelp = helpDialog(help);

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

  const markers = new MarkersView(root, { player, timeline, status });
  const findings = new FindingsView(root, { player, timeline, status, selectRaw: (stream, raw) => selection.highlightRaw(stream, raw) });
  const messages = new PageMessages(root, { timeline, renderer, player, rawView, status, transport, chart, selection }, wanted);

  // Playing, or a jump with the transport, brings the raw view back to the playhead.
  let seen = { state: player.state, cursor: player.cursor };
  player.onChange(() => {
    messages.updateTotals();
    root.dataset.state = player.state;
    const moved = player.cursor !== seen.cursor && player.state !== State.PLAYING && player.state !== State.LIVE;
    if ((player.state === State.PLAYING && seen.state !== State.PLAYING) || moved) rawView.resume();
    seen = { state: player.state, cursor: player.cursor };
    status.playerChanged(player);
  });

  // ------------------------------------------------------------------ connection
  const link = openLink(
    timeline,
    (message) => {
      messages.handle(message);
      if (message.type === "findings") findings.received(message);
      if (message.type === "end") {
        markers.timelineComplete(wanted);
        findings.timelineComplete();
      }
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
    status.reset(); // before the player's reset, which would otherwise be said
    if (timeline.capture) {
      timeline.reset();
      renderer.reset();
      rawView.reset();
      player.reset();
      markers.reset();
      findings.reset();
      delete root.dataset.loaded;
    }
    messages.reset();
    delete root.dataset.connection;
    link.start(message);
  }

  const api = { player, timeline, renderer, rawView, selection, links, status, markers, findings, connect, say: (text, kind) => status.say(text, kind), send: (type, fields) => link.send(type, fields) };
  window.streamscope = api;
  return api;
}
